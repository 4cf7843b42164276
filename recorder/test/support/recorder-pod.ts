// The recorder of a node as the process kubelet runs it from the operator's Pod: where it listens, its container's
// process and logs (across restarts), its node's hostPath folders. A live view: after a restart or a new Pod it shows
// the current process.
import type { V1Pod } from '@kubernetes/client-node';
import { recorderName } from '@vigil/crds';
import type { TestCluster } from '@vigil/testing/kube/test-cluster';
import type { ContainerHandle } from '@vigil/testing/kube/kubelet/container-process';
import type { PodHandle } from '@vigil/testing/kube/kubelet/pod-worker';
import type { LogLine } from './recorder-process.js';

/** The recorder container's process, as tests use it. */
export interface RecorderContainer {
  /** The running process (undefined between runs). */
  readonly pid: number | undefined;
  signal(sig: NodeJS.Signals): void;
  /** Everything every run wrote. */
  output(): string;
  /** Every JSON log line of every run. */
  logs(): LogLine[];
  /** A log line of the current run. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

export interface RecorderPod {
  readonly node: string;
  readonly podName: string;
  /** Where the current run listens (its `listening on` line). */
  readonly url: string;
  /** The bearer token the kubelet gave the Pod. */
  readonly apiToken: string;
  readonly proc: RecorderContainer;
  /** The node's hostPath roots (they outlive the Pod's processes), by their path in the Pod. */
  readonly hostPaths: Record<string, string>;
}

function jsonLines(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.startsWith('{')) continue;
    try {
      out.push(JSON.parse(raw) as LogLine);
    } catch {
      // a line cut by the end of the output so far
    }
  }
  return out;
}

const isListening = (l: LogLine): boolean => typeof l.msg === 'string' && l.msg.startsWith('listening on');

/** The view of the recorder the kubelet runs for `node`'s Pod (`pod` as the operator made it). */
export function recorderPodView(cluster: TestCluster, node: string, pod: V1Pod): RecorderPod {
  const { kubelet } = cluster.controlPlane;
  const podName = recorderName(node);
  const handle = (): PodHandle => {
    const h = kubelet.pod(cluster.namespace, podName);
    if (h === undefined) throw new Error(`the kubelet runs no Pod ${podName}`);
    return h;
  };
  const container = (): ContainerHandle => {
    const c = handle().container('recorder');
    if (c === undefined) throw new Error(`Pod ${podName} has no recorder container`);
    return c;
  };
  const hostPaths = Object.fromEntries((pod.spec?.volumes ?? []).filter((v) => v.hostPath !== undefined).map((v) => [v.hostPath?.path ?? '', kubelet.hostPath(node, v.hostPath?.path ?? '')]));
  const proc: RecorderContainer = {
    get pid() {
      return container().pid;
    },
    signal: (sig) => container().signal(sig),
    output: () => container().output(),
    logs: () => jsonLines(container().output()),
    async waitForLog(predicate, timeoutMs = 30_000) {
      let hit: LogLine | undefined;
      await container().waitForOutput((text) => (hit = jsonLines(text).find(predicate)) !== undefined, timeoutMs);
      return hit as LogLine;
    },
  };
  return {
    node, podName, proc, hostPaths,
    get url() {
      const line = jsonLines(container().runOutput()).find(isListening);
      if (line === undefined) throw new Error(`the recorder of ${node} does not listen yet`);
      return String(line['url']);
    },
    get apiToken() {
      const token = handle().token;
      if (token === undefined) throw new Error(`Pod ${podName} has no token yet`);
      return token;
    },
  };
}

/** Waits until the kubelet runs `node`'s recorder Pod and its current run listens (a run after `notPid`, when given). */
export async function waitForRecorder(cluster: TestCluster, node: string, o: { timeoutMs?: number; notPid?: number } = {}): Promise<RecorderPod> {
  const timeoutMs = o.timeoutMs ?? 90_000;
  const handle = await cluster.controlPlane.kubelet.waitForPod(cluster.namespace, recorderName(node), { timeoutMs });
  const pod = await cluster.core.readNamespacedPod({ name: recorderName(node), namespace: cluster.namespace });
  const view = recorderPodView(cluster, node, pod);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = handle.container('recorder');
    if (c !== undefined && c.pid !== undefined && c.pid !== o.notPid) {
      await c.waitForOutput((text) => jsonLines(text).some(isListening), Math.max(1000, deadline - Date.now()));
      if (c.pid !== undefined && c.pid !== o.notPid) return view;
    }
    if (Date.now() > deadline) throw new Error(`the recorder of ${node} did not start; it wrote:\n${c?.output().slice(-3000) ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
