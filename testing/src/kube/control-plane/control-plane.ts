// The tests' Kubernetes control plane: real etcd, kube-apiserver and kube-controller-manager built from upstream
// (scripts/build-control-plane.sh), the process kubelet, and the fault proxy that every token-bearing client goes
// through. One per test (its own etcd, its own folder): cluster-scoped objects such as Nodes, RecorderNodes and CRDs
// never leak from one test into another.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '../client-node.js';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit, type Response as UndiciResponse } from 'undici';
import { PooledKubeConfig } from '../pooled-kubeconfig.js';
import { startApiFaultProxy, type ApiFaults } from './api-fault-proxy.js';
import { controlPlaneBinaries } from './binaries.js';
import { waitForFixture } from '../../fixture-process.js';
import { startControllerManager } from './controller-manager.js';
import { startEtcd } from './etcd.js';
import { startKubeApiserver } from './kube-apiserver.js';
import { createControlPlanePki } from './pki.js';
import type { ContainerImages } from '../kubelet/container-images.js';
import { startProcessKubelet, type ProcessKubeletControls } from '../kubelet/process-kubelet.js';

export interface KubeconfigOptions {
  /** A bearer token (through the fault proxy); none: the administrator's client certificate, straight to the API server. */
  token?: string;
  namespace?: string;
  user?: string;
}

export interface ControlPlane {
  /** The address token-bearing clients use (the fault proxy in front of kube-apiserver). */
  readonly url: string;
  /** kube-apiserver itself. */
  readonly apiserverUrl: string;
  readonly caPem: string;
  readonly adminKubeconfig: string;
  /** A token of a ServiceAccount bound to cluster-admin, for raw HTTP calls as the administrator. */
  readonly adminToken: string;
  /** kube-apiserver's audit log (JSON lines, one per answered request). */
  readonly auditLogPath: string;
  /** Milliseconds from the first process started until the API answered and the kubelet ran. */
  readonly startMs: number;
  readonly faults: ApiFaults;
  readonly kubelet: ProcessKubeletControls;
  /** fetch() that trusts the control plane's CA. */
  fetch(path: string, init?: UndiciRequestInit): Promise<UndiciResponse>;
  writeKubeconfig(path: string, o?: KubeconfigOptions): Promise<void>;
  /** A token of `namespace/name` from the TokenRequest API (as the kubelet gets one for a Pod), valid for an hour. */
  issueServiceAccountToken(namespace: string, name: string): Promise<string>;
  close(): Promise<void>;
}

function kubeconfigYaml(server: string, caPem: string, user: object, namespace: string | undefined): string {
  return JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'test',
    clusters: [{ name: 'test', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'test', user }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'test', ...(namespace === undefined ? {} : { namespace }) } }],
  }, null, 2);
}

/** Starts a control plane in `dir` (a folder the caller removes); close() stops every process it started. */
export interface ControlPlaneOptions {
  /** kube-controller-manager's --node-monitor-grace-period (default 20 s; a real cluster's is 50 s). */
  nodeMonitorGracePeriodSeconds?: number;
  /** How often the kubelet renews each Node's Lease (default 5 s; a real kubelet renews every 10 s). */
  nodeLeaseSeconds?: number;
  /** What the kubelet runs for each container image (others run as placeholders). */
  images?: ContainerImages;
  /**
   * false: token-bearing clients talk to kube-apiserver itself, and `faults` refuses every fault. The proxy runs in the
   * test's own process, so at 200 nodes (100 heartbeats a second and more) it is the slowest part of the path.
   */
  faultProxy?: boolean;
  /** How often the kubelet acts on what time made due: heartbeats, restarts, probes (default 500 ms). */
  kubeletSyncMs?: number;
}

/** The faults of a control plane started without its proxy: asking for one is a mistake in the test. */
const NO_FAULTS: ApiFaults = new Proxy({} as ApiFaults, {
  get: (_target, name) => () => {
    throw new Error(`this control plane runs without the fault proxy: faults.${String(name)}() is not available`);
  },
});

export async function startControlPlane(dir: string, opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const started = Date.now();
  const binaries = await controlPlaneBinaries();
  const stops: Array<() => Promise<void> | void> = [];
  const close = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop();
  };
  // etcd needs no certificate: it starts while openssl makes the others.
  const [etcdStarted, pkiMade] = await Promise.allSettled([startEtcd(binaries.etcd, dir), createControlPlanePki(join(dir, 'pki'))]);
  if (etcdStarted.status === 'fulfilled') stops.push(() => etcdStarted.value.stop());
  try {
    if (etcdStarted.status === 'rejected') throw etcdStarted.reason;
    if (pkiMade.status === 'rejected') throw pkiMade.reason;
    const etcd = etcdStarted.value;
    const pki = pkiMade.value;
    const apiserver = await startKubeApiserver({ binary: binaries.kubeApiserver, dir, pki, etcdUrl: etcd.url, etcdPrefix: '/registry' });
    stops.push(() => apiserver.stop());
    const proxy = opts.faultProxy === false ? undefined : await startApiFaultProxy(apiserver.url, pki);
    if (proxy !== undefined) stops.push(() => proxy.close());
    const tokenUrl = proxy?.url ?? apiserver.url;
    const faults = proxy ?? NO_FAULTS;
    const adminUser = { 'client-certificate': pki.adminCertFile, 'client-key': pki.adminKeyFile };
    const adminKubeconfig = join(dir, 'admin.kubeconfig');
    await writeFile(adminKubeconfig, kubeconfigYaml(apiserver.url, pki.caPem, adminUser, undefined));
    const controllerManager = startControllerManager({ binary: binaries.kubeControllerManager, kubeconfig: adminKubeconfig, pki, ...(opts.nodeMonitorGracePeriodSeconds === undefined ? {} : { nodeMonitorGracePeriodSeconds: opts.nodeMonitorGracePeriodSeconds }) });
    stops.push(() => controllerManager.stop());
    // The kubelet serves with kube-apiserver's certificate (same CA, names 127.0.0.1), which kube-apiserver verifies.
    const serving = { cert: await readFile(pki.servingCertFile, 'utf8'), key: await readFile(pki.servingKeyFile, 'utf8') };
    const kubelet = await startProcessKubelet({ kubeconfig: adminKubeconfig, dir: join(dir, 'kubelet'), api: { url: tokenUrl, caPem: pki.caPem }, faults, serving, ...(opts.images === undefined ? {} : { images: opts.images }), ...(opts.kubeletSyncMs === undefined ? {} : { syncMs: opts.kubeletSyncMs }), ...(opts.nodeLeaseSeconds === undefined ? {} : { heartbeatSeconds: opts.nodeLeaseSeconds }) });
    stops.push(() => kubelet.stop());

    const kc = PooledKubeConfig.fromFile(adminKubeconfig);
    stops.push(() => kc.close());
    const core = kc.makeApiClient(CoreV1Api);
    // kube-controller-manager is up once its ServiceAccount controller has made the default namespace's account.
    await waitForFixture(controllerManager.process, () => core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' }).then(() => true, () => false), 60_000, 'kube-controller-manager');
    const issueServiceAccountToken = async (namespace: string, name: string): Promise<string> => {
      const answer = await core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
      const token = answer.status?.token;
      if (token === undefined) throw new Error(`no token for ${namespace}/${name}`);
      return token;
    };
    // The administrator as a bearer token too, for raw calls and clients that take only tokens.
    await core.createNamespacedServiceAccount({ namespace: 'kube-system', body: { metadata: { name: 'test-cluster-admin' } } });
    await kc.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({ body: {
      metadata: { name: 'test-cluster-admin' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'test-cluster-admin', namespace: 'kube-system' }],
    } });
    const adminToken = await issueServiceAccountToken('kube-system', 'test-cluster-admin');
    const agent = new Agent({ connect: { ca: pki.caPem } });
    stops.push(() => agent.close());
    return {
      url: tokenUrl,
      apiserverUrl: apiserver.url,
      caPem: pki.caPem,
      adminKubeconfig,
      adminToken,
      auditLogPath: apiserver.auditLogPath,
      startMs: Date.now() - started,
      faults,
      kubelet,
      fetch: (path, init = {}) => undiciFetch(`${tokenUrl}${path}`, { ...init, dispatcher: agent }),
      async writeKubeconfig(path, o = {}) {
        const text = o.token === undefined
          ? kubeconfigYaml(apiserver.url, pki.caPem, adminUser, o.namespace)
          : kubeconfigYaml(tokenUrl, pki.caPem, { token: o.token }, o.namespace);
        await writeFile(path, text, { mode: 0o600 });
      },
      issueServiceAccountToken,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
