// The release CA's objects: the Secret with its key and certificate (the operator's alone; no owner, so it outlives an
// uninstall and a reinstall keeps trusting what it issued) and the ConfigMap publishing its certificate to the recorders.
import { CA_BUNDLE_KEY, CA_CONFIGMAP_NAME, CA_SECRET_NAME, Labels, type OwnerReference } from '@vigil/crds';
import type { ConfigMap, Secret } from '@vigil/kube';
import { MANAGED_BY } from './names.js';

/** The CA certificate's lifetime: ten years (node certificates are short; the CA is what clients pin). */
export const CA_LIFETIME_MS = 3650 * 86400_000;
export const CA_COMMON_NAME = 'Vigil release CA';

const labels = { [Labels.name]: 'vigil', [Labels.component]: 'release-ca', [Labels.managedBy]: MANAGED_BY };

/** In Secret vigil-ca after a rotation: the CA certificate that signed before, trusted until it ends. */
export const PREVIOUS_CA_KEY = 'previous.crt';
/** On Secret vigil-ca-next: when a trust bundle holding it was first published (RFC 3339). */
export const CA_PUBLISHED_ANNOTATION = 'vigil.io/published-at';

/** Whether the operator made this CA Secret (its labels): only such a CA is rotated by the operator on its own. */
export function isOperatorCa(secret: Secret): boolean {
  return secret.metadata.labels?.[Labels.managedBy] === MANAGED_BY && secret.metadata.labels[Labels.component] === 'release-ca';
}

/** The CA Secret (vigil-ca, or vigil-ca-next during a rotation), with the previous CA's certificate when there is one. */
export function desiredCaSecret(namespace: string, certPem: string, keyPem: string, opts: { name?: string; previousPem?: string } = {}): Secret & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: opts.name ?? CA_SECRET_NAME, namespace, labels },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(certPem).toString('base64'),
      'tls.key': Buffer.from(keyPem).toString('base64'),
      ...(opts.previousPem === undefined ? {} : { [PREVIOUS_CA_KEY]: Buffer.from(opts.previousPem).toString('base64') }),
    },
  };
}

/** The trust bundle for the recorder Pods (mounted as cluster.tls.ca_file); owned by the release's recorder ConfigMap. */
export function desiredCaConfigMap(namespace: string, certPem: string, owner: OwnerReference): ConfigMap & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CA_CONFIGMAP_NAME, namespace, labels, ownerReferences: [owner] },
    data: { [CA_BUNDLE_KEY]: certPem },
  };
}
