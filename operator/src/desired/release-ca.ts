// The release CA's objects: the Secret with its key and certificate (the operator's alone; no owner, so it outlives an
// uninstall and a reinstall keeps trusting what it issued) and the ConfigMap publishing its certificate to the recorders.
import { CA_BUNDLE_KEY, CA_CONFIGMAP_NAME, CA_SECRET_NAME, Labels, type OwnerReference } from '@vigil/crds';
import type { ConfigMap, Secret } from '@vigil/kube';
import { MANAGED_BY } from './names.js';

/** The CA certificate's lifetime: ten years (node certificates are short; the CA is what clients pin). */
export const CA_LIFETIME_MS = 3650 * 86400_000;
export const CA_COMMON_NAME = 'Vigil release CA';

const labels = { [Labels.name]: 'vigil', [Labels.component]: 'release-ca', [Labels.managedBy]: MANAGED_BY };

export function desiredCaSecret(namespace: string, certPem: string, keyPem: string): Secret & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: CA_SECRET_NAME, namespace, labels },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(certPem).toString('base64'), 'tls.key': Buffer.from(keyPem).toString('base64') },
  };
}

/** The CA certificate for the recorder Pods (mounted as cluster.tls.ca_file); owned by the release's recorder ConfigMap. */
export function desiredCaConfigMap(namespace: string, certPem: string, owner: OwnerReference): ConfigMap & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CA_CONFIGMAP_NAME, namespace, labels, ownerReferences: [owner] },
    data: { [CA_BUNDLE_KEY]: certPem },
  };
}
