// EventRecorder: core/v1 Events on Cameras and RecorderNodes (assignment, move, failure, membership, quorum), in the
// namespace a real API server accepts them in; written in the background so that a failing Event never holds up a reconcile,
// a few at a time from a bounded queue (5,000 cameras assigned at once are 5,000 Events: not 5,000 requests at once).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { toApiTime, toMicroTime, type Clock, type KubeClient, Resources, type CoreEvent, type KubeObject } from '@vigil/kube';

export const COMPONENT = 'vigil-operator';

/** Events written at once; the others wait their turn in order. */
const WRITES_IN_FLIGHT = 4;
/** Events waiting at most; beyond that a new Event is dropped and counted, as client-go's event broadcaster drops when its queue of 1,000 is full. */
const MAX_QUEUED = 1000;

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
  private readonly queue: CoreEvent[] = [];
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** Events dropped because the queue was full. */
  dropped = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly identity: string,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly dedupeMs = 60_000,
    private readonly onDropped: () => void = () => undefined,
  ) {}

  normal(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Normal', reason, message);
  }

  warning(obj: KubeObject, reason: string, message: string): void {
    this.record(obj, 'Warning', reason, message);
  }

  /** Waits until every queued Event has been written or has failed (tests, shutdown). */
  flush(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
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
    if (this.queue.length >= MAX_QUEUED) {
      if (this.dropped++ % 100 === 0) this.log.warn({ dropped: this.dropped, queued: this.queue.length }, 'too many Events waiting to be written: dropping new ones');
      this.onDropped();
      return;
    }
    this.queue.push(event);
    this.writeNext();
  }

  private writeNext(): void {
    while (this.inFlight < WRITES_IN_FLIGHT && this.queue.length > 0) {
      const event = this.queue.shift() as CoreEvent;
      this.inFlight++;
      void this.client
        .create(Resources.events, event)
        .then(() => undefined)
        .catch((err: Error) => this.log.warn({ err: err.message, reason: event.reason }, 'could not write an Event'))
        .finally(() => {
          this.inFlight--;
          this.writeNext();
          if (this.queue.length === 0 && this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
        });
    }
  }
}
