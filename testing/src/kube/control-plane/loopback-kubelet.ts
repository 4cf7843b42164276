// The one part of Kubernetes the tests stand in for: a kubelet for every Node of the cluster, on loopback. It posts each
// Node's status and renews its Lease in kube-node-lease, reports the Pods bound to its Nodes as running (Ready as their
// readiness URL answers, when a test gave one), and finishes their graceful deletion. It runs no container itself: the
// process of a Pod that matters (a recorder) is started by the test from the Pod as the operator made it
// (recorder/test/support/recorder-pod.ts) and registered here by its readiness URL. Losing a node is real: stop its
// heartbeats and kube-controller-manager's node lifecycle controller marks it Unknown and taints it.
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, type V1Node, type V1Pod } from '@kubernetes/client-node';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** A readiness probe's default failureThreshold: one slow answer on a busy machine does not make a Pod unready. */
const FAILURE_THRESHOLD = 3;
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface LoopbackKubeletControls {
  /** The Pod is Ready while a GET of `url` answers 2xx (undefined: Ready as soon as it runs). */
  setPodReadinessUrl(namespace: string, podName: string, url: string | undefined): void;
  /** false: the node's kubelet goes silent (no status, no Lease renewal) until set true again. */
  setNodeReady(nodeName: string, ready: boolean): void;
}

export interface LoopbackKubelet extends LoopbackKubeletControls {
  stop(): void;
}

function probeOk(url: string): Promise<boolean> {
  const get = url.startsWith('https:') ? httpsGet : httpGet;
  return new Promise((resolve) => {
    // As the kubelet's httpGet probes: the serving certificate is not checked.
    const req = get(url, { timeout: 2000, ...(url.startsWith('https:') ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

function nowRfc3339(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}

/** Starts the kubelet stand-in with `kubeconfig` (an identity allowed to write Nodes, Leases and Pod status). */
export function startLoopbackKubelet(kubeconfig: string, opts: { heartbeatSeconds?: number; syncMs?: number } = {}): LoopbackKubelet {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const coordination = kc.makeApiClient(CoordinationV1Api);
  const silent = new Set<string>();
  const readinessUrls = new Map<string, string>();
  const probeResults = new Map<string, boolean>();
  /** Failed probes in a row per Pod: like the kubelet, a Pod turns unready only after FAILURE_THRESHOLD of them. */
  const failuresInARow = new Map<string, number>();
  const lastHeartbeat = new Map<string, number>();
  const heartbeatMs = (opts.heartbeatSeconds ?? 5) * 1000;
  let stopped = false;
  let syncing = false;

  const postNodeStatus = async (node: V1Node): Promise<void> => {
    const name = node.metadata?.name ?? '';
    const now = nowRfc3339();
    const condition = (type: string, status: string, reason: string, message: string): object => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: node.status?.conditions?.find((c) => c.type === type && c.status === status)?.lastTransitionTime ?? now });
    await core.patchNodeStatus({
      name,
      body: {
        status: {
          conditions: [
            condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
            condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
            condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
            condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
          ],
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: name }],
          capacity: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          nodeInfo: { kubeletVersion: 'v1.35.4', kubeProxyVersion: '', containerRuntimeVersion: 'vigil-loopback://1', operatingSystem: 'linux', architecture: 'amd64', osImage: 'loopback', kernelVersion: '', machineID: '', systemUUID: '', bootID: '' },
        },
      },
    }, MERGE);
  };

  const renewLease = async (node: V1Node): Promise<void> => {
    const name = node.metadata?.name ?? '';
    const renewTime = new Date();
    try {
      await coordination.patchNamespacedLease({ name, namespace: NODE_LEASE_NAMESPACE, body: { spec: { holderIdentity: name, renewTime } } }, MERGE);
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      await coordination.createNamespacedLease({
        namespace: NODE_LEASE_NAMESPACE,
        body: { metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid ?? '' }] }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime } },
      });
    }
  };

  const syncNode = async (node: V1Node): Promise<void> => {
    const name = node.metadata?.name ?? '';
    if (silent.has(name)) return;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    if (ready && Date.now() - (lastHeartbeat.get(name) ?? 0) < heartbeatMs) return;
    await postNodeStatus(node);
    await renewLease(node);
    lastHeartbeat.set(name, Date.now());
  };

  const syncPod = async (pod: V1Pod, nodes: Map<string, V1Node>): Promise<void> => {
    const namespace = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const nodeName = pod.spec?.nodeName;
    if (nodeName === undefined || !nodes.has(nodeName)) return;
    if (pod.metadata?.deletionTimestamp !== undefined) {
      // Graceful deletion ends with the kubelet: the Pod's processes are the test's, so it is gone once asked.
      if (!silent.has(nodeName)) await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
      return;
    }
    if (silent.has(nodeName)) return;
    const key = `${namespace}/${name}`;
    const ready = readinessUrls.has(key) ? probeResults.get(key) === true : true;
    const flag = ready ? 'True' : 'False';
    const status = pod.status;
    if (status?.phase === 'Running' && status.conditions?.some((c) => c.type === 'Ready' && c.status === flag)) return;
    const started = status?.startTime ?? nowRfc3339();
    const now = nowRfc3339();
    await core.patchNamespacedPodStatus({
      name, namespace,
      body: {
        status: {
          phase: 'Running',
          conditions: [
            { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: started },
            { type: 'Initialized', status: 'True', lastTransitionTime: started },
            { type: 'Ready', status: flag, lastTransitionTime: now, ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status' }) },
            { type: 'ContainersReady', status: flag, lastTransitionTime: now },
            { type: 'PodScheduled', status: 'True', lastTransitionTime: started },
          ],
          hostIP: '127.0.0.1', hostIPs: [{ ip: '127.0.0.1' }],
          podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }],
          startTime: started,
          containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
            name: c.name, image: c.image ?? '', imageID: '', containerID: `vigil-loopback://${pod.metadata?.uid ?? ''}/${c.name}`,
            ready, started: true, restartCount: 0, state: { running: { startedAt: started } },
          })),
        },
      },
    }, MERGE).catch((err: unknown) => {
      if ((err as { code?: number }).code !== 404 && (err as { code?: number }).code !== 409) throw err;
    });
  };

  const probe = async (): Promise<void> => {
    await Promise.all([...readinessUrls].map(async ([key, url]) => {
      const ok = await probeOk(url);
      if (readinessUrls.get(key) !== url) return;
      const failures = ok ? 0 : (failuresInARow.get(key) ?? 0) + 1;
      failuresInARow.set(key, failures);
      if (ok) probeResults.set(key, true);
      else if (failures >= FAILURE_THRESHOLD || !probeResults.has(key)) probeResults.set(key, false);
    }));
  };

  const sync = async (): Promise<void> => {
    if (syncing || stopped) return;
    syncing = true;
    try {
      await probe();
      const nodes = new Map((await core.listNode()).items.map((n) => [n.metadata?.name ?? '', n]));
      await Promise.all([...nodes.values()].map((n) => syncNode(n).catch(() => undefined)));
      const pods = (await core.listPodForAllNamespaces()).items;
      await Promise.all(pods.map((p) => syncPod(p, nodes).catch(() => undefined)));
    } catch {
      // The API may be restarting or the test ending: the next tick tries again.
    } finally {
      syncing = false;
    }
  };
  const timer = setInterval(() => void sync(), opts.syncMs ?? 500);
  timer.unref();
  void sync();

  return {
    setPodReadinessUrl(namespace, podName, url) {
      const key = `${namespace}/${podName}`;
      failuresInARow.delete(key);
      if (url === undefined) {
        readinessUrls.delete(key);
        probeResults.delete(key);
      } else readinessUrls.set(key, url);
      void sync();
    },
    setNodeReady(nodeName, ready) {
      if (ready) {
        silent.delete(nodeName);
        lastHeartbeat.delete(nodeName);
      } else silent.add(nodeName);
      void sync();
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
