// RecorderNode + settings → the node's recorder Pod (kubernetes.md §3): pinned, hostPath archive, ConfigMap, Secrets,
// downward API, probes, grace period; its template hash (which includes the recorder ConfigMap's content hash). The
// recorder container meets Pod Security's restricted level; the Pod does not (§17): hostPath volumes, and with
// hostPaths.prepare (the default) the init container prepare-dirs running as root with CHOWN.
import { createHash } from 'node:crypto';
import type { V1Container, V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { nodeNameOf, TEMPLATE_HASH_ANNOTATION, type RecorderNode } from '@vigil/crds';
import type { Settings } from '../config/settings.js';
import type { Pod } from '@vigil/kube';
import { NODE_ANNOTATION, recorderLabels, recorderName } from './names.js';
import type { OwnerReference } from '@vigil/crds';
import { advertiseUrl, publicUrl } from './urls.js';
import { nodeCertificateNames } from './node-certificate.js';

/** Where the recorder finds what the Pod gives it; the recorder ConfigMap's config.yaml refers to these paths. */
export const MountPaths = {
  config: '/etc/vigil/config.yaml',
  apiTokens: '/etc/vigil/secrets/api-tokens',
  clusterToken: '/etc/vigil/secrets/cluster-token',
  license: '/etc/vigil/vigil.lic',
  recordings: '/var/lib/vigil/recordings',
  data: '/var/lib/vigil/data',
  /** The CA bundle the recorders check each other's certificates against (cluster.tls.ca_file = <this>/ca.crt). */
  clusterCa: '/etc/vigil/cluster-ca',
  /** The root filesystem is read-only: a small scratch folder for whatever a library writes there. */
  tmp: '/tmp',
} as const;

export interface PodContext {
  namespace: string;
  /** Hash of the recorder ConfigMap's data ('' while it is missing). */
  configHash: string;
  /** The object of the release the Pod belongs to (garbage collection removes the Pod with it). */
  owner: OwnerReference;
}

export function configMapHash(data: Record<string, string> | undefined): string {
  if (!data) return '';
  const sorted = Object.keys(data).sort().map((k) => [k, data[k]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
}

function env(nodeName: string, ctx: PodContext, settings: Settings): V1EnvVar[] {
  const vars: V1EnvVar[] = [
    { name: 'VIGIL_NODE_NAME', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
    { name: 'VIGIL_CLUSTER_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: 'VIGIL_CLUSTER_ADVERTISE_URL', value: advertiseUrl(nodeName, ctx.namespace, settings) },
  ];
  const pub = publicUrl(nodeName, settings);
  if (pub) vars.push({ name: 'VIGIL_CLUSTER_PUBLIC_URL', value: pub });
  // The names this node's certificate must carry (the operator approves a request for exactly these).
  if (settings.tls) vars.push({ name: 'VIGIL_TLS_DNS_NAMES', value: nodeCertificateNames(nodeName, ctx.namespace, settings).join(',') });
  if (settings.recorder.secrets.database) {
    vars.push({ name: 'VIGIL_DATABASE_URL', valueFrom: { secretKeyRef: { name: settings.recorder.secrets.database, key: 'url' } } });
  }
  return vars;
}

function volumes(settings: Settings): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  const r = settings.recorder;
  const volumes: V1Volume[] = [
    { name: 'config', configMap: { name: r.configMap, items: [{ key: r.configKey, path: 'config.yaml' }] } },
    { name: 'api-tokens', secret: { secretName: r.secrets.apiTokens } },
    { name: 'cluster-token', secret: { secretName: r.secrets.clusterToken } },
    // Prepared by the init container (created when missing), or prepared by the node's administrator (must exist).
    { name: 'recordings', hostPath: { path: r.hostPaths.recordings, type: r.hostPaths.prepare ? 'DirectoryOrCreate' : 'Directory' } },
    { name: 'data', hostPath: { path: r.hostPaths.data, type: r.hostPaths.prepare ? 'DirectoryOrCreate' : 'Directory' } },
    { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
  ];
  const mounts: V1VolumeMount[] = [
    { name: 'config', mountPath: MountPaths.config, subPath: 'config.yaml', readOnly: true },
    { name: 'api-tokens', mountPath: MountPaths.apiTokens, readOnly: true },
    { name: 'cluster-token', mountPath: MountPaths.clusterToken, readOnly: true },
    { name: 'recordings', mountPath: MountPaths.recordings },
    { name: 'data', mountPath: MountPaths.data },
    { name: 'tmp', mountPath: MountPaths.tmp },
  ];
  const bundle = settings.tls?.caBundle;
  if (bundle) {
    const items = [{ key: bundle.key, path: 'ca.crt' }];
    volumes.push(bundle.configMap !== undefined ? { name: 'cluster-ca', configMap: { name: bundle.configMap, items } } : { name: 'cluster-ca', secret: { secretName: bundle.secret ?? '', items } });
    mounts.push({ name: 'cluster-ca', mountPath: MountPaths.clusterCa, readOnly: true });
  }
  if (r.secrets.license) {
    volumes.push({ name: 'license', secret: { secretName: r.secrets.license, items: [{ key: 'vigil.lic', path: 'vigil.lic' }] } });
    mounts.push({ name: 'license', mountPath: MountPaths.license, subPath: 'vigil.lic', readOnly: true });
  }
  return { volumes, mounts };
}

/** The recorder runs as this user (the image's); hostPath folders are created root-owned, so an init container hands them over. */
export const RECORDER_UID = 10001;

/** Every container: no privilege escalation, no capability, a read-only root filesystem (Pod Security "restricted"). */
const LOCKED_DOWN = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };

/**
 * Creates the hostPath roots and gives them to the recorder's user: the one thing that needs root, with CHOWN as its
 * only capability (fsGroup does not apply to hostPath volumes). Only the roots: an archive of millions of files is
 * never walked, and everything below them was written by the recorder itself. Left out with hostPaths.prepare false.
 */
function prepareDirs(settings: Settings, mounts: V1VolumeMount[]): V1Container {
  const dirs = [MountPaths.recordings, MountPaths.data].join(' ');
  return {
    name: 'prepare-dirs',
    image: settings.recorder.image,
    imagePullPolicy: settings.recorder.imagePullPolicy,
    command: ['sh', '-c', `mkdir -p ${dirs} && chown ${RECORDER_UID}:${RECORDER_UID} ${dirs}`],
    securityContext: { ...LOCKED_DOWN, runAsUser: 0, runAsNonRoot: false, capabilities: { drop: ['ALL'], add: ['CHOWN'] } },
    resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
    volumeMounts: mounts.filter((m) => m.name === 'recordings' || m.name === 'data'),
  };
}

function container(nodeName: string, ctx: PodContext, settings: Settings, mounts: V1VolumeMount[]): V1Container {
  const r = settings.recorder;
  const scheme = settings.tls === undefined ? {} : { scheme: 'HTTPS' };
  const c: V1Container = {
    name: 'recorder',
    image: r.image,
    imagePullPolicy: r.imagePullPolicy,
    args: ['--config', MountPaths.config],
    env: env(nodeName, ctx, settings),
    ports: [
      { name: 'api', containerPort: r.ports.api, protocol: 'TCP' },
      { name: 'metrics', containerPort: r.ports.metrics, protocol: 'TCP' },
    ],
    // With TLS the API port speaks HTTPS only; the kubelet does not check the certificate of a probe.
    readinessProbe: { httpGet: { path: '/api/health/ready', port: r.ports.api, ...scheme }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 3 },
    livenessProbe: { httpGet: { path: '/api/health/live', port: r.ports.api, ...scheme }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
    volumeMounts: mounts,
    securityContext: { ...LOCKED_DOWN, runAsUser: RECORDER_UID, runAsGroup: RECORDER_UID, runAsNonRoot: true },
    resources: r.resources as V1Container['resources'],
  };
  return c;
}

/** The Pod as the operator wants it, with its template-hash annotation. */
export function desiredPod(rn: RecorderNode, settings: Settings, ctx: PodContext): Pod {
  const nodeName = nodeNameOf(rn);
  const { volumes: vols, mounts } = volumes(settings);
  const spec: NonNullable<Pod['spec']> = {
    nodeName,
    ...(settings.recorder.hostPaths.prepare ? { initContainers: [prepareDirs(settings, mounts)] } : {}),
    containers: [container(nodeName, ctx, settings, mounts)],
    volumes: vols,
    securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
    terminationGracePeriodSeconds: settings.recorder.terminationGracePeriodSeconds,
    restartPolicy: 'Always',
    // A node-pinned Pod bypasses the scheduler; it must still run on a node that is briefly unreachable.
    tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
  };
  // The node's own ServiceAccount (desired/recorder-identity.ts): it may write its own heartbeat Lease and no other.
  spec.serviceAccountName = recorderName(nodeName);
  const labels = recorderLabels(nodeName);
  const hash = createHash('sha256').update(JSON.stringify({ labels, spec, config: ctx.configHash })).digest('hex').slice(0, 16);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: recorderName(nodeName),
      namespace: ctx.namespace,
      labels,
      annotations: { [TEMPLATE_HASH_ANNOTATION]: hash, [NODE_ANNOTATION]: nodeName },
      ownerReferences: [ctx.owner],
    },
    spec,
  };
}

export function templateHashOf(pod: Pod | undefined): string | undefined {
  return pod?.metadata.annotations?.[TEMPLATE_HASH_ANNOTATION];
}

/** Ready condition True and not being deleted. */
export function isPodReady(pod: Pod | undefined): boolean {
  if (!pod || pod.metadata.deletionTimestamp) return false;
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}
