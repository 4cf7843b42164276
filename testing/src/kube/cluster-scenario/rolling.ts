// Watching a rolling update of the recorder Pods: at most one node may be without a Ready recorder at any moment.
import type { ClusterDriver } from './driver.js';

export interface RecorderPodState {
  node: string;
  name: string;
  uid: string;
  ready: boolean;
  deleting: boolean;
  templateHash: string;
}

const TEMPLATE_HASH = 'vigil.io/template-hash';

interface PodJson {
  metadata: { name: string; uid: string; deletionTimestamp?: string; annotations?: Record<string, string> };
  spec: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/** The recorder Pods of `kubectl get pods -l app.kubernetes.io/component=recorder -o json`. */
export function recorderPodStates(podListJson: string): RecorderPodState[] {
  const list = JSON.parse(podListJson) as { items: PodJson[] };
  return list.items.map((p) => ({
    node: p.spec.nodeName ?? '',
    name: p.metadata.name,
    uid: p.metadata.uid,
    ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    deleting: p.metadata.deletionTimestamp !== undefined,
    templateHash: p.metadata.annotations?.[TEMPLATE_HASH] ?? '',
  }));
}

/** Folds observations of the recorder Pods into what a rolling update did: the order of nodes and the most out at once. */
export class RollTracker {
  private readonly initial = new Map<string, string>();
  /** Nodes in the order their new Pod first became Ready. */
  readonly order: string[] = [];
  /** The most nodes without a Ready, current Pod seen in one observation, and when. */
  maxOut = 0;
  worst: string[] = [];
  observations = 0;

  constructor(readonly nodes: string[], before: RecorderPodState[]) {
    for (const p of before) this.initial.set(p.node, p.templateHash);
  }

  observe(pods: RecorderPodState[]): void {
    this.observations++;
    const out: string[] = [];
    for (const node of this.nodes) {
      const serving = pods.filter((p) => p.node === node && p.ready && !p.deleting);
      if (serving.length === 0) out.push(node);
      if (serving.some((p) => p.templateHash !== '' && p.templateHash !== this.initial.get(node)) && !this.order.includes(node)) this.order.push(node);
    }
    if (out.length > this.maxOut) {
      this.maxOut = out.length;
      this.worst = out;
    }
  }

  /** Every node runs a new, Ready Pod. */
  get done(): boolean {
    return this.nodes.every((n) => this.order.includes(n));
  }
}

/** Polls the recorder Pods until every node rolled (or the time runs out); the tracker says how it went. */
export async function watchRoll(driver: ClusterDriver, namespace: string, nodes: string[], opts: { timeoutMs: number; pollMs?: number; before: RecorderPodState[] }): Promise<RollTracker> {
  const tracker = new RollTracker(nodes, opts.before);
  const deadline = Date.now() + opts.timeoutMs;
  while (!tracker.done) {
    if (Date.now() >= deadline) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for every recorder Pod to roll; rolled: ${tracker.order.join(', ') || '(none)'} of ${nodes.join(', ')}`);
    tracker.observe(recorderPodStates(await driver.kubectl(['-n', namespace, 'get', 'pods', '-l', 'app.kubernetes.io/component=recorder', '-o', 'json'])));
    await new Promise((resolve) => setTimeout(resolve, opts.pollMs ?? 500));
  }
  return tracker;
}
