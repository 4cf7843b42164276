// Writes this node's part of its RecorderNode status — url, publicUrl, version, cameras — when it differs from what the API holds.
import type { Logger } from 'pino';
import type { RecorderNode } from '@vigil/crds';
import { isConflict, isNotFound, Resources, type KubeClient, type KubeObject } from '@vigil/kube';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { ClusterView } from './cluster-view.js';

export interface NodeReport {
  url: string;
  publicUrl: string | undefined;
  version: string;
  cameras: number;
}

export interface NodeStatusReporterOptions {
  client: KubeClient;
  view: ClusterView;
  nodeName: string;
  report(): NodeReport;
  clock: Clock;
  log: Logger;
  tickMs?: number;
}

type RecorderNodeObject = RecorderNode & KubeObject;

/** Writes tried in one pass when the API answers 409 (someone wrote the status in between). */
const CONFLICT_ATTEMPTS = 3;

function differs(status: RecorderNode['status'], report: NodeReport): boolean {
  return status?.url !== report.url || status?.publicUrl !== report.publicUrl || status?.version !== report.version || status?.cameras !== report.cameras;
}

export class NodeStatusReporter {
  readonly #opts: NodeStatusReporterOptions;
  #timer: TimerHandle | undefined;
  #inFlight = false;
  #missingReported = false;

  constructor(opts: NodeStatusReporterOptions) {
    this.#opts = opts;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = this.#opts.clock.setInterval(() => void this.tick(), this.#opts.tickMs ?? 2000);
    // At once when this node's RecorderNode appears or changes, not up to a tick later: until the URL is written,
    // other nodes send callers to the operator's default (the node's Service name, never the public URL).
    this.#opts.view.recorderNodes.onChange((key) => {
      if (key === this.#opts.nodeName && this.#timer !== undefined) void this.tick();
    });
    void this.tick();
  }

  stop(): void {
    this.#opts.clock.clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async tick(): Promise<void> {
    const { view, nodeName, log } = this.#opts;
    if (this.#inFlight || !view.synced) return;
    const report = this.#opts.report();
    const cached = view.recorderNode(nodeName);
    if (cached === undefined) {
      // The operator creates RecorderNodes for eligible Nodes (or add-learner does); a recorder never makes itself a member.
      if (!this.#missingReported) log.warn({ node: nodeName }, `no RecorderNode "${nodeName}" exists; this node takes no cameras until the operator or /cluster/add-learner creates it`);
      this.#missingReported = true;
      return;
    }
    this.#missingReported = false;
    if (!differs(cached.status, report)) return;
    this.#inFlight = true;
    try {
      // The operator rewrites its part of the status at every heartbeat: a conflict is read again and retried at once.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.#write(report, cached);
          return;
        } catch (err) {
          if (isConflict(err) && attempt < CONFLICT_ATTEMPTS) continue;
          if (!isConflict(err) && !isNotFound(err)) log.warn({ node: nodeName, err: (err as Error).message }, 'cannot write the RecorderNode status; retrying');
          return;
        }
      }
    } finally {
      this.#inFlight = false;
    }
  }

  async #write(report: NodeReport, cached: RecorderNodeObject): Promise<void> {
    const { view, nodeName, client } = this.#opts;
    const fresh = (await client.get<RecorderNodeObject>(Resources.recorderNodes, undefined, nodeName, { timeoutMs: 5000 })) ?? cached;
    const status = { ...fresh.status, url: report.url, version: report.version, cameras: report.cameras };
    if (report.publicUrl === undefined) delete status.publicUrl;
    else status.publicUrl = report.publicUrl;
    view.recorderNodes.upsert(await client.replaceStatus(Resources.recorderNodes, { ...fresh, status }, { timeoutMs: 5000 }));
  }
}
