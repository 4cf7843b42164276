// The Cameras a node records, from two watches with field selectors: `status.node=<node>` (assigned to it) and
// `status.handoverFrom=<node>` (moving away make-before-break, still recorded here). A camera that passes from one to
// the other (a planned move starts, or is called off) leaves one watch before the other brings it: two streams with no
// order between them. It stays recorded until a read of the Camera says where it is now, so a move is never a stop and
// a start, and a count taken meanwhile (`/cluster/leave`'s handed_over) still includes it.
import type { Logger } from 'pino';
import { CAMERA_HANDOVER_FROM_FIELD, CAMERA_NODE_FIELD, recordsCamera, type Camera as CameraResource } from '@vigil/crds';
import { Informer, keyOf, Resources, type Clock as KubeClock, type KubeClient, type KubeObject } from '@vigil/kube';

export type CameraObject = CameraResource & KubeObject;

interface Departure {
  readonly last: CameraObject;
}

/** Wait before reading a departed camera again when the API did not answer. */
const RETRY_MS = 1000;

export class RecordedCameras {
  /** The Cameras assigned to this node (status.node is this node). */
  readonly assigned: Informer<CameraObject>;
  /** The Cameras moving away from this node make-before-break (status.handoverFrom is this node). */
  readonly handingOver: Informer<CameraObject>;
  /**
   * Cameras that left one watch and are not (yet) in the other, by cache key, until a read settles where they are. Each
   * departure is its own entry: a read begun for an earlier one (the camera came back, then left again) may answer with
   * the Camera as it was before the later departure, and must not settle it.
   */
  readonly #departing = new Map<string, Departure>();
  readonly #handlers: Array<() => void> = [];
  readonly #stopped = new AbortController();

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly nodeName: string,
    log: Logger,
    private readonly clock: KubeClock,
  ) {
    const opts = { namespace, minRetryMs: 500, maxRetryMs: 5000 };
    // An API server without CRD selectableFields (before 1.31) refuses these selectors: each informer then watches
    // every Camera and keeps the ones that match, as every node did before.
    this.assigned = new Informer('cameras', client, Resources.cameras, log, clock, {
      ...opts, fieldSelector: `${CAMERA_NODE_FIELD}=${nodeName}`, matches: (c) => (c as CameraObject).status?.node === nodeName,
    });
    this.handingOver = new Informer('cameras-handing-over', client, Resources.cameras, log, clock, {
      ...opts, fieldSelector: `${CAMERA_HANDOVER_FROM_FIELD}=${nodeName}`, matches: (c) => (c as CameraObject).status?.handoverFrom === nodeName,
    });
    for (const [cache, other] of [[this.assigned, this.handingOver], [this.handingOver, this.assigned]] as const) {
      cache.onChange((key, obj, old) => {
        if (obj !== undefined) this.#departing.delete(key);
        else if (old !== undefined && other.get(key) === undefined) this.#depart(key, old);
      });
    }
  }

  get informers(): Array<Informer<CameraObject>> {
    return [this.assigned, this.handingOver];
  }

  /** Called when a departed camera is settled (the informers' own changes reach their handlers directly). */
  onSettled(fn: () => void): void {
    this.#handlers.push(fn);
  }

  stop(): void {
    this.#stopped.abort();
  }

  get(id: string): CameraObject | undefined {
    const key = `${this.namespace}/${id}`;
    return this.assigned.get(key) ?? this.handingOver.get(key) ?? this.#departing.get(key)?.last;
  }

  /** Every camera this node records: assigned, handed over, or between the two watches. */
  list(): CameraObject[] {
    const here = new Map<string, CameraObject>([...this.#departing].map(([key, d]) => [key, d.last]));
    for (const c of this.handingOver.list()) here.set(keyOf(c), c);
    for (const c of this.assigned.list()) here.set(keyOf(c), c);
    return [...here.values()];
  }

  #depart(key: string, last: CameraObject): void {
    if (this.#departing.has(key)) return;
    const departure: Departure = { last };
    this.#departing.set(key, departure);
    void this.#settle(key, departure);
  }

  /** Reads the Camera until the API answers: puts it into the cache it belongs to now, or lets it go. */
  async #settle(key: string, departure: Departure): Promise<void> {
    const name = departure.last.metadata.name ?? '';
    const current = () => this.#departing.get(key) === departure;
    while (current() && !this.#stopped.signal.aborted) {
      let now: CameraObject | undefined;
      try {
        now = await this.client.get<CameraObject>(Resources.cameras, this.namespace, name, { timeoutMs: 3000 });
      } catch {
        await this.clock.sleep(RETRY_MS, this.#stopped.signal);
        continue;
      }
      if (!current()) return; // a watch brought it meanwhile (and it may have left again since: another read settles that)
      this.#departing.delete(key);
      if (now !== undefined && recordsCamera(now, this.nodeName)) {
        (now.status?.node === this.nodeName ? this.assigned : this.handingOver).upsert(now);
      }
      for (const fn of this.#handlers) fn();
    }
  }
}
