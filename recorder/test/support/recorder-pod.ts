// A cluster-mode recorder standing for the operator's Pod of a node: the Pod's env, ConfigMap and Secret volumes as the
// operator generated them, with only addresses and directories rewritten for loopback; its readiness drives the fake kubelet.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod, V1Volume } from '@kubernetes/client-node';
import type { TestCluster } from '@vigil/testing/kube/test-cluster';
import { startOnFreshPort } from '@vigil/testing/net';
import { waitUntil } from '@vigil/testing/processes';
import { parse } from 'yaml';
import { startRecorderProcess, type RecorderProcess } from './recorder-process.js';

export interface RecorderPod {
  readonly node: string;
  readonly podName: string;
  readonly url: string;
  /** The bearer token its kubeconfig carries (cut it off with cluster.controlPlane.faults.cutOff). */
  readonly apiToken: string;
  readonly proc: RecorderProcess;
  /** Local stand-ins of the node's hostPath roots (they survive a restart of the pod). */
  readonly hostPaths: Record<string, string>;
}

export interface RecorderPodOptions {
  /** The node's directory: mounts and hostPaths live below it, so a restart finds its disks again. */
  dir: string;
  /** Reuse the port of a previous run of the same node. */
  port?: number;
  /** Extra configuration merged over the ConfigMap's (e.g. a shorter segment_seconds). */
  extraConfig?: Record<string, unknown>;
  /** Start cut off from the API (its new token refused from the first request): a restart during an outage. */
  apiCutOff?: boolean;
}

/** Ports tried when the one picked is taken before the recorder binds it. */
const FRESH_PORT_ATTEMPTS = 3;

/** The operator's Pod for `node`, once it exists. */
export async function recorderPodOf(cluster: TestCluster, node: string, timeoutMs = 30_000): Promise<V1Pod> {
  let pod: V1Pod | undefined;
  await waitUntil(async () => {
    const pods = await cluster.core.listNamespacedPod({ namespace: cluster.namespace, labelSelector: 'app.kubernetes.io/component=recorder' });
    pod = pods.items.find((p) => p.spec?.nodeName === node && p.metadata?.deletionTimestamp === undefined);
    return pod !== undefined;
  }, timeoutMs, `the operator's recorder Pod for ${node}`);
  return pod as V1Pod;
}

async function secretData(cluster: TestCluster, name: string): Promise<Record<string, string>> {
  const secret = await cluster.core.readNamespacedSecret({ name, namespace: cluster.namespace });
  return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/** Materializes a volume as a local directory: ConfigMap and Secret keys as files, hostPath as a lasting folder. */
async function volumeDir(cluster: TestCluster, volume: V1Volume, dir: string): Promise<string> {
  const local = join(dir, 'volumes', volume.name);
  await mkdir(local, { recursive: true });
  const files: Record<string, string> = {};
  if (volume.configMap !== undefined) {
    // As the kubelet: a Pod whose ConfigMap does not exist yet (the release CA's, say) waits for it.
    let data: Record<string, string> | undefined;
    await waitUntil(async () => {
      data = (await cluster.core.readNamespacedConfigMap({ name: volume.configMap?.name ?? '', namespace: cluster.namespace }).catch(() => undefined))?.data;
      return data !== undefined;
    }, 30_000, `ConfigMap ${volume.configMap.name ?? ''} of volume ${volume.name}`, 100);
    Object.assign(files, data);
  } else if (volume.secret !== undefined) {
    Object.assign(files, await secretData(cluster, volume.secret.secretName ?? ''));
  }
  const items = volume.configMap?.items ?? volume.secret?.items;
  for (const [key, text] of Object.entries(files)) {
    const item = items?.find((i) => i.key === key);
    if (items !== undefined && item === undefined) continue;
    await writeFile(join(local, item?.path ?? key), text, { mode: 0o600 });
  }
  return local;
}

/** Replaces container paths (mount points) by their local stand-ins in every string of a configuration. */
function rewritePaths(value: unknown, mounts: ReadonlyArray<[string, string]>): unknown {
  if (typeof value === 'string') {
    const hit = mounts.find(([mountPath]) => value === mountPath || value.startsWith(`${mountPath}/`));
    return hit === undefined ? value : `${hit[1]}${value.slice(hit[0].length)}`;
  }
  if (Array.isArray(value)) return value.map((v) => rewritePaths(v, mounts));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewritePaths(v, mounts)]));
  return value;
}

/** Starts the recorder of `node` from its Pod as the operator made it. */
export async function startRecorderPod(cluster: TestCluster, node: string, opts: RecorderPodOptions): Promise<RecorderPod> {
  const pod = await recorderPodOf(cluster, node);
  const container = pod.spec?.containers.find((c) => c.name === 'recorder') ?? pod.spec?.containers[0];
  if (container === undefined) throw new Error(`Pod ${pod.metadata?.name} has no container`);
  const mounts: Array<[string, string]> = [];
  const hostPaths: Record<string, string> = {};
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.spec?.volumes?.find((v) => v.name === mount.name);
    if (volume === undefined) continue;
    let local = await volumeDir(cluster, volume, opts.dir);
    if (mount.subPath !== undefined) local = join(local, mount.subPath);
    if (volume.hostPath !== undefined) hostPaths[volume.hostPath.path] = local;
    mounts.push([mount.mountPath, local]);
  }
  mounts.sort((a, b) => b[0].length - a[0].length); // the most specific mount point first
  const configPath = container.args?.[(container.args?.indexOf('--config') ?? -2) + 1] ?? '/etc/vigil/config.yaml';
  const configFile = rewritePaths(configPath, mounts) as string;
  const { readFile } = await import('node:fs/promises');
  const fromConfigMap = (parse(await readFile(configFile, 'utf8')) ?? {}) as Record<string, unknown>;
  const config = { ...(rewritePaths(fromConfigMap, mounts) as Record<string, unknown>), ...opts.extraConfig };
  delete config['listen'];
  delete config['metrics'];

  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.fieldRef?.fieldPath === 'spec.nodeName') env[e.name] = node;
    else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = cluster.namespace;
    else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[e.name] = pod.metadata?.name ?? '';
    else if (e.valueFrom?.secretKeyRef !== undefined) env[e.name] = (await secretData(cluster, e.valueFrom.secretKeyRef.name ?? ''))[e.valueFrom.secretKeyRef.key] ?? '';
  }
  delete env['VIGIL_CLUSTER_PUBLIC_URL'];
  // The Pod's own ServiceAccount (the operator makes one per node), as the kubelet would mount its token.
  const account = pod.spec?.serviceAccountName;
  if (account === undefined) throw new Error(`Pod ${pod.metadata?.name} names no ServiceAccount`);
  const { path: kubeconfig, token } = await cluster.kubeconfigFor(account, `recorder-${node}`);
  env['KUBECONFIG'] = kubeconfig;
  if (opts.apiCutOff === true) cluster.controlPlane.faults.cutOff(token, 'refuse');
  // The advertised address must be known before the start, so the port is picked here (and picked again when another
  // process takes it before the recorder binds it: the recorder then exits with EADDRINUSE).
  // The scheme the operator gave it (https:// with TLS), this process on loopback instead of the node's Service.
  const scheme = new URL(env['VIGIL_CLUSTER_ADVERTISE_URL'] ?? 'http://x').protocol;
  const start = async (port: number): Promise<RecorderProcess> => {
    env['VIGIL_CLUSTER_ADVERTISE_URL'] = `${scheme}//127.0.0.1:${port}`;
    return startRecorderProcess({ dir: join(opts.dir, 'process'), config, port, env, ownPaths: true });
  };
  const proc = opts.port !== undefined ? await start(opts.port) : await startOnFreshPort(start, (err) => String(err).includes('EADDRINUSE'), FRESH_PORT_ATTEMPTS);
  const podName = pod.metadata?.name ?? '';
  cluster.controlPlane.kubelet.setPodReadinessUrl(cluster.namespace, podName, `${proc.url}/api/health/ready`);
  return { node, podName, url: proc.url, apiToken: token, proc, hostPaths };
}
