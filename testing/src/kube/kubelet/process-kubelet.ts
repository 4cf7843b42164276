// The one part of Kubernetes the tests stand in for: a kubelet for every Node of the cluster, whose containers are
// local processes. It beats for each Node (status and Lease), runs the Pods bound to its Nodes (pod-worker.ts), finishes
// their graceful deletion, and can lose a node (heartbeats stop, its processes SIGKILLed) or cut a node's Pods off the
// API (their tokens refused by the fault proxy). It also stands in for kube-scheduler (pod-binder.ts) and serves
// `kubectl port-forward` (port-forward/).
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api } from '../client-node.js';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { freePort } from '../../net.js';
import { waitUntil } from '../../processes.js';
import type { ApiFaults, CutOffMode } from '../control-plane/api-fault-proxy.js';
import { PooledKubeConfig } from '../pooled-kubeconfig.js';
import type { ContainerImages } from './container-images.js';
import { MERGE, NodeHeartbeats } from './node-heartbeats.js';
import { apiPodSources } from './pod-sources.js';
import { PodWorker, type PodHandle } from './pod-worker.js';
import { bindPendingPods } from './pod-binder.js';
import { startKubeletServer } from './port-forward/kubelet-server.js';
import { hostPathDir } from './pod-volumes.js';
import { watchObjects } from './watched-objects.js';

export interface ProcessKubeletOptions {
  /** An identity allowed to write Nodes, Leases, Pod status, and to issue ServiceAccount tokens. */
  kubeconfig: string;
  /** The kubelet's folder: <dir>/<node>/host (hostPaths) and <dir>/<node>/pods/<uid> (volumes, container folders). */
  dir: string;
  /** The API as Pods reach it (the fault proxy) and its CA. */
  api: { url: string; caPem: string };
  faults: ApiFaults;
  images?: ContainerImages;
  /** The serving certificate and key (PEM) of the kubelet's HTTPS endpoint (port-forward), which kube-apiserver verifies. */
  serving: { cert: string; key: string };
  heartbeatSeconds?: number;
  /** How often the kubelet acts on what time made due (heartbeats, restarts, probes), from its caches. */
  syncMs?: number;
  /** Restart back-off (test-sized: the first restart at once, then 1 s doubled up to 10 s; reset after 10 s of running). */
  backoff?: { initialMs: number; maxMs: number; resetAfterMs: number };
}

export interface ProcessKubeletControls {
  /** false: the node's kubelet goes silent (no heartbeat, no Pod status, its processes left running) until set true. */
  setNodeReady(nodeName: string, ready: boolean): void;
  /** The machine is gone: heartbeats stop and every process of its Pods is SIGKILLed; nothing restarts until reviveNode. */
  loseNode(nodeName: string): void;
  /** The machine is back: heartbeats resume and the containers of its Pods start again (restartCount grows). */
  reviveNode(nodeName: string): void;
  /** Every Pod of the node loses the API (the tokens it was given, and those it will be given, refused or hung). */
  cutOffNode(nodeName: string, mode: CutOffMode): void;
  reconnectNode(nodeName: string): void;
  /** The Pod as this kubelet runs it (undefined when it runs no such Pod). */
  pod(namespace: string, name: string): PodHandle | undefined;
  /** Waits until this kubelet runs the Pod (a new one, when `notUid` names the one it replaces). */
  waitForPod(namespace: string, name: string, o?: { timeoutMs?: number; notUid?: string }): Promise<PodHandle>;
  /** The local folder of a node's hostPath. */
  hostPath(nodeName: string, path: string): string;
}

export interface ProcessKubelet extends ProcessKubeletControls {
  /** Stops the loop and SIGKILLs every process. */
  stop(): Promise<void>;
}

/** Starts the kubelet: it acts on each change to a Node or Pod as its watch brings it, and every `syncMs` on what time made due. */
export async function startProcessKubelet(o: ProcessKubeletOptions): Promise<ProcessKubelet> {
  const kc = PooledKubeConfig.fromFile(o.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const workers = new Map<string, PodWorker>();
  const ending = new Set<string>();
  // A lost node's kubelet answers no port-forward either (kube-apiserver then reports the failed dial).
  const server = await startKubeletServer({ ...o.serving, podPorts: (namespace, name) => {
    const worker = [...workers.values()].find((w) => w.namespace === namespace && w.name === name && !ending.has(w.uid) && !w.isLost);
    return worker?.ports;
  } });
  const heartbeats = new NodeHeartbeats(core, kc.makeApiClient(CoordinationV1Api), (o.heartbeatSeconds ?? 5) * 1000, server.port);
  const sources = apiPodSources(core);
  const silent = new Set<string>();
  const cut = new Map<string, CutOffMode>();
  const tokens = new Map<string, Set<string>>();
  const backoff = o.backoff ?? { initialMs: 1000, maxMs: 10_000, resetAfterMs: 10_000 };
  let stopped = false;
  let syncing = false;
  /** Pods this kubelet bound whose binding the Pod watch has not brought yet: uid → Node. */
  const boundHere = new Map<string, string>();
  /** A change came while a sync ran: one more sync follows it. */
  let again = false;

  const workerOf = (pod: V1Pod): PodWorker => {
    const nodeName = pod.spec?.nodeName ?? '';
    return new PodWorker(pod, {
      nodeDir: join(o.dir, nodeName), images: o.images ?? {}, sources, api: o.api, backoff, pickPort: freePort,
      onToken: (token) => {
        tokens.set(nodeName, (tokens.get(nodeName) ?? new Set()).add(token));
        const mode = cut.get(nodeName);
        if (mode !== undefined) o.faults.cutOff(token, mode);
      },
      patchStatus: async (p, status) => {
        await core.patchNamespacedPodStatus({ name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '', body: { status } }, MERGE).catch((err: unknown) => {
          if ((err as { code?: number }).code !== 404 && (err as { code?: number }).code !== 409) throw err;
        });
      },
    });
  };

  // The grace period goes in the body: with a body, kube-apiserver reads no query parameter.
  /** Ends a Pod's processes; with `remove`, reports its final status and deletes it for good (graceful deletion's last step). */
  const end = (uid: string, worker: PodWorker, pod: V1Pod, graceSeconds: number, remove: boolean): void => {
    ending.add(uid);
    void (async () => {
      await worker.terminate(graceSeconds);
      if (remove) {
        await worker.reportTerminated();
        await core.deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', body: { gracePeriodSeconds: 0, preconditions: { uid } } }).catch(() => undefined);
      }
      workers.delete(uid);
      ending.delete(uid);
    })();
  };

  const syncPod = async (pod: V1Pod): Promise<void> => {
    const uid = pod.metadata?.uid ?? '';
    const nodeName = pod.spec?.nodeName ?? '';
    if (silent.has(nodeName) || ending.has(uid)) return;
    let worker = workers.get(uid);
    if (pod.metadata?.deletionTimestamp !== undefined) {
      if (worker === undefined) {
        // Never run here (or already ended): the kubelet only confirms the deletion.
        await core.deleteNamespacedPod({ name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? '', body: { gracePeriodSeconds: 0, preconditions: { uid } } }).catch(() => undefined);
        return;
      }
      worker.update(pod);
      end(uid, worker, pod, pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30, true);
      return;
    }
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
      if (worker === undefined) return;
    }
    if (worker === undefined) {
      worker = workerOf(pod);
      workers.set(uid, worker);
    }
    worker.update(pod);
    await worker.sync();
  };

  const sync = async (): Promise<void> => {
    if (stopped) return;
    if (syncing) {
      again = true;
      return;
    }
    syncing = true;
    try {
      const nodes = new Map<string, V1Node>(watchedNodes.list().map((n) => [n.metadata?.name ?? '', n]));
      await Promise.all([...nodes.values()].filter((n) => !silent.has(n.metadata?.name ?? '')).map((n) => heartbeats.beat(n).catch(() => undefined)));
      // A Pod bound here may still be unbound in the cache (its watch event not in yet): bound as it is known here, or
      // the next Pod would be placed as if the first were nowhere.
      const all = watchedPods.list().map((p) => {
        const uid = p.metadata?.uid ?? '';
        const nodeName = boundHere.get(uid);
        if (nodeName === undefined) return p;
        if ((p.spec?.nodeName ?? '') !== '') {
          boundHere.delete(uid);
          return p;
        }
        return { ...p, spec: { ...p.spec, containers: p.spec?.containers ?? [], nodeName } };
      });
      const known = new Set(all.map((p) => p.metadata?.uid ?? ''));
      for (const uid of boundHere.keys()) if (!known.has(uid)) boundHere.delete(uid);
      await bindPendingPods(core, [...nodes.values()], all, (uid, nodeName) => boundHere.set(uid, nodeName)).catch(() => undefined);
      const pods = all.filter((p) => nodes.has(p.spec?.nodeName ?? ''));
      const seen = new Set(pods.map((p) => p.metadata?.uid ?? ''));
      // A Pod removed without this kubelet (a forced deletion): its processes end with the Pod's grace period.
      for (const [uid, worker] of workers) {
        if (!seen.has(uid) && !ending.has(uid) && !silent.has(worker.nodeName)) end(uid, worker, {}, 30, false);
      }
      await Promise.all(pods.map((p) => syncPod(p).catch(() => undefined)));
    } catch {
      // The API restarting or the test ending: the next tick tries again.
    } finally {
      syncing = false;
    }
    if (again && !stopped) {
      again = false;
      void sync();
    }
  };
  // Every change to a Node or Pod is synced at once; the tick runs what is due by time (heartbeats, restarts after
  // their back-off, probes) from the caches, with no request unless something is due.
  // resourceVersion 0: the first lists come from the API server's watch cache, as client-go's informers list.
  const watchedNodes = watchObjects<V1Node>(kc, '/api/v1/nodes', () => core.listNode({ resourceVersion: '0' }), () => void sync());
  const watchedPods = watchObjects<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces({ resourceVersion: '0' }), () => void sync());
  await Promise.all([watchedNodes.listed, watchedPods.listed]);
  const timer = setInterval(() => void sync(), o.syncMs ?? 500);
  timer.unref();
  void sync();

  const find = (namespace: string, name: string): PodWorker | undefined =>
    [...workers.values()].find((w) => w.namespace === namespace && w.name === name && !ending.has(w.uid));

  return {
    setNodeReady(nodeName, ready) {
      if (ready) {
        silent.delete(nodeName);
        heartbeats.forget(nodeName);
      } else silent.add(nodeName);
      void sync();
    },
    loseNode(nodeName) {
      silent.add(nodeName);
      for (const w of workers.values()) if (w.nodeName === nodeName) w.lose();
    },
    reviveNode(nodeName) {
      for (const w of workers.values()) if (w.nodeName === nodeName) w.found();
      silent.delete(nodeName);
      heartbeats.forget(nodeName);
      void sync();
    },
    cutOffNode(nodeName, mode) {
      cut.set(nodeName, mode);
      for (const token of tokens.get(nodeName) ?? []) o.faults.cutOff(token, mode);
    },
    reconnectNode(nodeName) {
      cut.delete(nodeName);
      for (const token of tokens.get(nodeName) ?? []) o.faults.restore(token);
    },
    pod: find,
    async waitForPod(namespace, name, w = {}) {
      let handle: PodWorker | undefined;
      await waitUntil(async () => {
        handle = find(namespace, name);
        return handle !== undefined && handle.uid !== w.notUid;
      }, w.timeoutMs ?? 60_000, `the kubelet running Pod ${namespace}/${name}`, 100);
      return handle as PodWorker;
    },
    hostPath: (nodeName, path) => hostPathDir(join(o.dir, nodeName), path),
    async stop() {
      stopped = true;
      clearInterval(timer);
      watchedNodes.stop();
      watchedPods.stop();
      for (const w of workers.values()) w.lose();
      await Promise.all([...workers.values()].map((w) => w.terminate(0)));
      await server.close();
      kc.close();
    },
  };
}
