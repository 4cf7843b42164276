// EventRecorder: core/v1 Events on Cameras and RecorderNodes (assignment, move, failure, membership, quorum), in the
// namespace a real API server accepts them in; written in the background so that a failing Event never holds up a reconcile.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { toApiTime, toMicroTime, type Clock, type KubeClient, Resources, type CoreEvent, type KubeObject } from '@vigil/kube';

export const COMPONENT = 'vigil-operator';

/**
 * Where an Event about `obj` must live: its own namespace, or `default` for a cluster-scoped object (RecorderNode),
 * as kube-apiserver's Event validation requires (pkg/apis/core/validation/events.go).
 */
export function eventNamespaceOf(obj: KubeObject): string {
  return obj.metadata.namespace !== undefined && obj.metadata.namespace !== '' ? obj.metadata.namespace : 'default';
}

export class EventRecorder {
  /** The same event about the same object within this window is written once. */
  private readonly recent = new Map<string, number>();
  private pending = new Set<Promise<void>>();

  constructor(
    private readonly client: KubeClient,
    private readonly identity: string,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly dedupeMs = 60_000,
  ) {}

  normal(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Normal', reason, message);
  }

  warning(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Warning', reason, message);
  }

  /** Waits for the Events being written (tests, shutdown). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const now = this.clock.now();
    const dedupeKey = `${obj.metadata.uid ?? obj.metadata.name}|${reason}|${message}`;
    const last = this.recent.get(dedupeKey);
    if (last !== undefined && now - last < this.dedupeMs) return;
    this.recent.set(dedupeKey, now);
    if (this.recent.size > 5000) for (const [k, t] of this.recent) if (now - t >= this.dedupeMs) this.recent.delete(k);
    const name = obj.metadata.name ?? 'unknown';
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${name.slice(0, 200)}.${now.toString(16)}${randomBytes(3).toString('hex')}`, namespace: eventNamespaceOf(obj) },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name,
        ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
        ...(obj.metadata.uid ? { uid: obj.metadata.uid } : {}),
      },
      reason,
      message,
      type,
      source: { component: COMPONENT },
      firstTimestamp: toApiTime(now),
      lastTimestamp: toApiTime(now),
      eventTime: toMicroTime(now),
      count: 1,
      action: reason,
      reportingComponent: COMPONENT,
      reportingInstance: this.identity,
    };
    this.log.info({ event: reason, type, object: `${obj.kind}/${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${name}` }, message);
    const p = this.client
      .create(Resources.events, event)
      .then(() => undefined)
      .catch((err: Error) => this.log.warn({ err: err.message, reason }, 'could not write an Event'))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }
}
