// On-demand reads of what this node does not watch: another node's Camera (where a request for it is sent), every
// Camera (/api/cameras), every Lease (/cluster/metrics) and the operator's (its silence rule, for readiness). A burst of requests shares one API call (answers
// are kept for a second or two), and while the API cannot be reached the last answer stands in.
import { DEFAULT_NODE_SILENCE_SECONDS, nodeLeaseName, NODE_SILENCE_ANNOTATION, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { Resources, silenceMsOf, type KubeClient, type Lease } from '@vigil/kube';
import type { Clock } from '../util/clock.js';
import type { CameraObject } from './cluster-view.js';

/** How long an answer is reused. */
const FRESH_MS = 2000;
/** How long the operator's silence rule is reused. */
const SILENCE_RULE_FRESH_MS = 30_000;
/** Cameras remembered one by one at most (a caller asking for many unknown ids cannot grow the map without end). */
const MAX_REMEMBERED = 10_000;

interface Remembered<T> {
  value: T;
  at: number;
}

/** One read per key at a time, reused while fresh, the last value kept for when the API fails. */
class ReadThrough<T> {
  readonly #values = new Map<string, Remembered<T>>();
  readonly #inFlight = new Map<string, Promise<T>>();

  constructor(private readonly clock: Clock) {}

  read(key: string, fetch: () => Promise<T>, freshMs = FRESH_MS): Promise<T> {
    const known = this.#values.get(key);
    if (known !== undefined && this.clock.now() - known.at < freshMs) return Promise.resolve(known.value);
    let pending = this.#inFlight.get(key);
    if (pending === undefined) {
      pending = fetch().then(
        (value) => {
          if (this.#values.size >= MAX_REMEMBERED && !this.#values.has(key)) this.#values.clear();
          this.#values.set(key, { value, at: this.clock.now() });
          return value;
        },
        (err: unknown) => {
          if (known !== undefined) return known.value;
          throw err;
        },
      ).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, pending);
    }
    return pending;
  }
}

export class ClusterLookups {
  /** Every answer, by what was asked ('camera/<id>', 'cameras', 'leases', 'lease/<name>'). */
  readonly #answers: ReadThrough<unknown>;
  #silenceRuleSeen = false;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    clock: Clock,
  ) {
    this.#answers = new ReadThrough(clock);
  }

  #read<T>(key: string, fetch: () => Promise<T>, freshMs?: number): Promise<T> {
    return this.#answers.read(key, fetch, freshMs) as Promise<T>;
  }

  /** A Lease of the namespace, undefined when there is none or the API is away (and nothing is remembered). */
  #lease(name: string, freshMs?: number): Promise<Lease | undefined> {
    return this.#read(`lease/${name}`, () => this.client.get<Lease>(Resources.leases, this.namespace, name, { timeoutMs: 3000 }), freshMs).catch(() => undefined);
  }

  /** A node's heartbeat Lease (what it reports: its URL from its first renewal), undefined when there is none or the API is away. */
  nodeLease(node: string): Promise<Lease | undefined> {
    return this.#lease(nodeLeaseName(node));
  }

  /** The Camera resource, undefined when there is none (a failed read with nothing remembered throws). */
  camera(id: string): Promise<CameraObject | undefined> {
    return this.#read(`camera/${id}`, () => this.client.get<CameraObject>(Resources.cameras, this.namespace, id, { timeoutMs: 3000 }));
  }

  /** Every Camera of the namespace. */
  cameras(): Promise<CameraObject[]> {
    return this.#read('cameras', async () => (await this.client.list<CameraObject>(Resources.cameras, { namespace: this.namespace, timeoutMs: 5000 })).items);
  }

  /** Every Lease of the namespace: the nodes' heartbeats and the operator's. */
  leases(): Promise<Lease[]> {
    return this.#read('leases', async () => (await this.client.list<Lease>(Resources.leases, { namespace: this.namespace, timeoutMs: 5000 })).items);
  }

  /**
   * The silence rule the operator publishes on its Lease (--node-silence), else the default 15 s (also while the API is
   * away). Readiness asks at every probe, and the rule changes only with the operator's flags: read at most every 30 s.
   */
  async nodeSilenceMs(): Promise<number> {
    // Until a rule was seen (no operator yet), the usual 2 s: the first leader's rule is taken at once.
    const lease = await this.#lease(OPERATOR_LEASE_NAME, this.#silenceRuleSeen ? SILENCE_RULE_FRESH_MS : FRESH_MS);
    this.#silenceRuleSeen = lease?.metadata.annotations?.[NODE_SILENCE_ANNOTATION] !== undefined;
    return silenceMsOf(lease?.metadata.annotations?.[NODE_SILENCE_ANNOTATION], DEFAULT_NODE_SILENCE_SECONDS);
  }
}
