// The whole cluster on loopback: the real control plane, PostgreSQL, two operators, the recorder Pods the operator makes run by
// the process kubelet, GStreamer cameras; and what can happen to a node (lost, cut off from the API, its recorder restarted).
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { SETTINGS_YAML, startTestCluster, type TestCluster } from '@vigil/testing/kube/test-cluster';
import { startOperator, type OperatorProcess } from '@vigil/testing/kube/operator-process';
import { startTestPostgres, type TestPostgres } from '@vigil/testing/postgres';
import { waitUntil } from '@vigil/testing/processes';
import { startMultiCamera, type MultiCamera } from '@vigil/testing/rtsp-multi-camera';
import { encodeLoopFile } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { stringify } from 'yaml';
import { sha256 } from '../support/recorder-process.js';
import { recorderImage } from '../support/recorder-image.js';
import { waitForRecorder, type RecorderPod } from '../support/recorder-pod.js';

export const TOKENS = { admin: 'cluster-admin-token-1', viewer: 'cluster-viewer-token-1' } as const;
/** The cameras' RTSP password: it lives in a Secret and must never reach a log or an answer. */
export const CAMERA_PASSWORD = 'Rtsp-Secret-7731';
export const SEGMENT_SECONDS = 2;
/**
 * The operators' --node-settle: shorter than the 30 s default, so a node that came back takes its share sooner; long
 * enough that "a node that comes back takes nothing back" is seen before it settles.
 */
export const NODE_SETTLE_S = 20;

/** The image the operator's settings name for the recorder (test-cluster's SETTINGS_YAML); the kubelet runs it from this checkout. */
const RECORDER_IMAGE = 'vigil/recorder:test';

/** The recorder ConfigMap as the chart renders it for cluster mode (container paths; the kubelet makes them local). */
const RECORDER_CONFIG = {
  cluster: { enabled: true, dataDir: '/var/lib/vigil/data' },
  record_path: '/var/lib/vigil/recordings',
  work_dir: '/var/lib/vigil/data/work',
  stall_seconds: 5,
  record: { segment_seconds: SEGMENT_SECONDS },
  auth: { tokens_file: '/etc/vigil/secrets/api-tokens/tokens.yaml', cluster_token_file: '/etc/vigil/secrets/cluster-token/token' },
  log_level: 'info',
};

/** What the chart adds to the recorder ConfigMap with tls.enabled (the default): the node's key and CSR, the CA mount. */
const RECORDER_TLS_CONFIG = {
  tls: { kubernetes_csr: { signer_name: 'vigil.io/recorder-serving' } },
  cluster: { ...RECORDER_CONFIG.cluster, tls: { ca_file: '/etc/vigil/cluster-ca/ca.crt' } },
};

export interface LoopbackClusterOptions {
  nodes: string[];
  cameraCount: number;
  /** TLS as the chart's default makes it: node certificates from the operator's release CA, this long-lived. */
  tls?: { certificateLifetimeSeconds: number };
}

export interface LoopbackCluster {
  cluster: TestCluster;
  db: TestPostgres;
  cameras: MultiCamera;
  operators: Map<string, OperatorProcess>;
  pods: Map<string, RecorderPod>;
  nodes: string[];
  /** The node's machine is gone: its kubelet silent, its recorder SIGKILLed (kill -9) and not restarted. */
  loseNode(node: string): void;
  /** The node is back (same disks): its kubelet starts the recorder again; resolves once it listens. */
  reviveNode(node: string): Promise<RecorderPod>;
  /** The node's recorder loses the API (its token refused by the fault proxy), or gets it back. */
  cutOff(node: string): void;
  reconnect(node: string): void;
  /** The recorder's process gets `signal` (default SIGTERM) and the kubelet starts it again (restartPolicy Always); resolves once it listens. */
  restartRecorder(node: string, signal?: NodeJS.Signals): Promise<RecorderPod>;
  startOperator(identity: string): Promise<OperatorProcess>;
  /** An API call to a node's recorder with the admin token; redirects are not followed. */
  api(node: string, path: string, init?: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> }): Promise<{ status: number; body: unknown; location: string | null }>;
  /** Every log line of every process this fixture started, for the credential check. */
  allOutput(): string;
}

function secret(name: string, data: Record<string, string>): { metadata: { name: string }; stringData: Record<string, string> } {
  return { metadata: { name }, stringData: data };
}

export async function startLoopbackCluster(t: TestContext, opts: LoopbackClusterOptions): Promise<LoopbackCluster> {
  const dir = await tempDir(t, 'vigil-loopback-cluster-');
  const images = { [RECORDER_IMAGE]: recorderImage() };
  const cluster = await startTestCluster(t, opts.tls === undefined
    ? { images, recorderConfigYaml: stringify(RECORDER_CONFIG) }
    : { images, recorderConfigYaml: stringify({ ...RECORDER_CONFIG, ...RECORDER_TLS_CONFIG }), settingsYaml: `${SETTINGS_YAML}tls:\n  certificateLifetimeSeconds: ${opts.tls.certificateLifetimeSeconds}\n` });
  const db = await startTestPostgres();
  t.after(() => db.destroy());
  const { namespace, core } = cluster;
  const tokens = [
    { name: 'ops', role: 'admin', sha256: sha256(TOKENS.admin) },
    { name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) },
  ];
  for (const body of [
    secret('vigil-api-tokens', { 'tokens.yaml': stringify(tokens) }),
    secret('vigil-cluster-token', { token: 'node-to-node-token-1' }),
    secret('vigil-database', { url: db.url }),
    secret('camera-login', { username: 'viewer', password: CAMERA_PASSWORD }),
  ]) {
    await core.createNamespacedSecret({ namespace, body });
  }
  const loop = join(dir, 'loop.h264');
  await encodeLoopFile(loop, { width: 320, height: 240, fps: 25, gop: 25, bitrateKbps: 300, seconds: 4 });
  const cameras = await startMultiCamera({ mounts: opts.cameraCount, file: loop, auth: 'digest', user: 'viewer', password: CAMERA_PASSWORD });
  t.after(() => cameras.stop());
  for (const node of opts.nodes) await cluster.addNode(node);

  const operators = new Map<string, OperatorProcess>();
  const pods = new Map<string, RecorderPod>();
  const { kubelet } = cluster.controlPlane;
  const running = async (node: string, notPid?: number): Promise<RecorderPod> => {
    const pod = await waitForRecorder(cluster, node, notPid === undefined ? {} : { notPid });
    pods.set(node, pod);
    return pod;
  };
  const fixture: LoopbackCluster = {
    cluster,
    db,
    cameras,
    operators,
    pods,
    nodes: opts.nodes,
    startOperator: async (identity) => {
      const kubeconfig = (await cluster.kubeconfigFor('vigil-operator', identity)).path;
      const op = await startOperator(t, cluster, identity, ['--node-settle', `${NODE_SETTLE_S}s`], kubeconfig);
      operators.set(identity, op);
      return op;
    },
    loseNode: (node) => kubelet.loseNode(node),
    reviveNode: async (node) => {
      kubelet.reviveNode(node);
      return running(node);
    },
    cutOff: (node) => kubelet.cutOffNode(node, 'refuse'),
    reconnect: (node) => kubelet.reconnectNode(node),
    restartRecorder: async (node, signal = 'SIGTERM') => {
      const before = pods.get(node)?.proc.pid;
      pods.get(node)?.proc.signal(signal);
      return running(node, before);
    },
    api: async (node, path, init = {}) => {
      const pod = pods.get(node);
      if (pod === undefined) throw new Error(`no recorder runs for ${node}`);
      const res = await fetch(`${pod.url}${path}`, {
        method: init.method ?? 'GET',
        redirect: 'manual',
        headers: { authorization: `Bearer ${init.token ?? TOKENS.admin}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(90_000),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, body, location: res.headers.get('location') };
    },
    allOutput: () => [...pods.values()].map((p) => p.proc.output()).join('\n') + [...operators.values()].map((o) => o.logText()).join('\n'),
  };
  await fixture.startOperator('op-1');
  await fixture.startOperator('op-2');
  await waitUntil(async () => (await cluster.recorderNodes()).length === opts.nodes.length, 30_000, 'a RecorderNode per Node');
  for (const node of opts.nodes) await running(node);
  // Up means every recorder has written its URL: before that the operator gives other nodes the node's Service name,
  // which resolves in a cluster but not on loopback.
  await waitUntil(async () => {
    const written = new Map((await cluster.recorderNodes()).map((rn) => [rn.metadata?.name, rn.status?.url]));
    return opts.nodes.every((node) => written.get(node) === pods.get(node)?.url);
  }, 30_000, 'every recorder’s URL on its RecorderNode');
  return fixture;
}

/** The Camera manifests a user applies: the stream without credentials, the login in a Secret. */
export function cameraManifests(fixture: LoopbackCluster, names: string[]): string {
  return names
    .map((name, i) => stringify({ apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name }, spec: { source: fixture.cameras.url(i), credentialsSecretRef: { name: 'camera-login' } } }))
    .join('---\n');
}
