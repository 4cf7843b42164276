// Informer: a list+watch cache of one resource. Survives watch errors, dropped watches and 410 Gone (re-lists); never
// exits the process. Handlers only learn which key changed; reconciles read the whole state from the caches.
import type { Logger } from 'pino';
import type { Clock } from './clock.js';
import { ApiError, isGone, type KubeClient, type WatchEventType, type WatchHandle } from './client.js';
import type { ResourceType } from './resources.js';
import { keyOf, type ApiStatus, type KubeObject } from './types.js';

export type ChangeHandler<T> = (key: string, obj: T | undefined, old: T | undefined) => void;

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  /** e.g. `metadata.name=x`: one object, which RBAC rules with resourceNames may allow where a whole list is refused. */
  fieldSelector?: string;
  /**
   * What the field selector selects, judged here too: an object written locally (upsert) is kept only when it matches, and
   * when the server refuses the field selector itself (400: a custom resource's field on an API server without CRD
   * selectableFields, before Kubernetes 1.31) the informer lists and watches everything and keeps what matches.
   */
  matches?: (obj: KubeObject) => boolean;
  /** The server ends each watch after about this long; it is renewed from the last resourceVersion. */
  watchTimeoutSeconds?: number;
  /** Delay before retrying after an error, doubling up to maxRetryMs. */
  minRetryMs?: number;
  maxRetryMs?: number;
}

/** resourceVersions are opaque, but the API server's are increasing integers; compare them when both are. */
function isOlder(candidate: string | undefined, current: string | undefined): boolean {
  if (!candidate || !current || !/^\d+$/.test(candidate) || !/^\d+$/.test(current)) return false;
  return BigInt(candidate) < BigInt(current);
}

/** `candidate` is no newer than `current` (false when either is not an integer, as with isOlder). */
function isNotNewer(candidate: string | undefined, current: string | undefined): boolean {
  return candidate === current ? /^\d+$/.test(candidate ?? '') : isOlder(candidate, current);
}

/**
 * The object as the cache keeps it: without metadata.managedFields, which no reconcile reads and which is the larger
 * part of an object written by several field managers (as client-go's TransformStripManagedFields does).
 */
function cached<T extends KubeObject>(obj: T): T {
  if (!('managedFields' in (obj.metadata ?? {}))) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata as T['metadata'] & { managedFields?: unknown };
  return { ...obj, metadata } as T;
}

export class Informer<T extends KubeObject> {
  private readonly store = new Map<string, T>();
  private readonly handlers: Array<ChangeHandler<T>> = [];
  private resourceVersion = '';
  private synced = false;
  private stopped = false;
  private watch: WatchHandle | undefined;
  private readonly stop$ = new AbortController();
  /** The server refused the field selector: everything is listed and watched, and `matches` filters here. */
  private filterLocally = false;
  private syncWaiters: Array<() => void> = [];
  /**
   * Counted for the metrics, the tests and the scale benchmark: lists done, watch restarts, 410s seen, objects received
   * (by lists and by watch events other than bookmarks) and the bytes of those watch events.
   */
  readonly stats = { lists: 0, watches: 0, gone: 0, errors: 0, objects: 0, bytes: 0 };

  private readonly log: Logger;

  /** `log` is the caller's logger; every line the informer writes names it (`informer`). */
  constructor(
    readonly name: string,
    private readonly client: KubeClient,
    private readonly type: ResourceType,
    log: Logger,
    private readonly clock: Clock,
    private readonly opts: InformerOptions = {},
  ) {
    this.log = log.child({ informer: name });
  }

  onChange(handler: ChangeHandler<T>): void {
    this.handlers.push(handler);
  }

  get(key: string): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return [...this.store.values()];
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /**
   * Puts an object the operator itself just wrote into the cache, so the next reconcile reads its own write even
   * before the watch delivers it (client-go's mutation cache). A watch event carrying an older version is ignored.
   * A write the watch has already overtaken is ignored too: when the key is absent although the informer has seen
   * events up to this version or later, the object was deleted since (its DELETED event came before the write's own
   * response), and putting it back would leave a ghost in the cache that no event ever removes.
   */
  upsert(obj: T): void {
    const key = keyOf(obj);
    const old = this.store.get(key);
    if (this.opts.matches !== undefined && !this.opts.matches(obj)) {
      // The write took the object out of what this informer selects (the watch's DELETED may already have come).
      if (old && !isOlder(obj.metadata.resourceVersion, old.metadata.resourceVersion)) {
        this.store.delete(key);
        this.emit(key, undefined, old);
      }
      return;
    }
    if (old && isOlder(obj.metadata.resourceVersion, old.metadata.resourceVersion)) return;
    if (!old && isNotNewer(obj.metadata.resourceVersion, this.resourceVersion)) return;
    const kept = cached(obj);
    this.store.set(key, kept);
    // A local write is a change like any other: the handlers hear of it now, and not again when the watch echoes it.
    if (!old || old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit(key, kept, old);
  }

  start(): void {
    void this.run();
  }

  stop(): void {
    this.stopped = true;
    this.stop$.abort();
    this.watch?.abort();
  }

  private async run(): Promise<void> {
    let retryMs = this.opts.minRetryMs ?? 500;
    const maxRetryMs = this.opts.maxRetryMs ?? 10_000;
    while (!this.stopped) {
      try {
        if (this.resourceVersion === '') await this.relist();
        const err = await this.watchOnce();
        if (this.stopped) return;
        if (err === undefined) {
          retryMs = this.opts.minRetryMs ?? 500;
          continue;
        }
        throw err;
      } catch (err) {
        if (this.stopped) return;
        this.stats.errors++;
        if (this.refusedFieldSelector(err)) {
          this.filterLocally = true;
          this.log.warn({ fieldSelector: this.opts.fieldSelector, err: (err as Error).message }, 'the API server refuses this field selector: listing and watching everything, keeping what matches');
          continue;
        }
        if (isGone(err)) {
          // The version we watched from was compacted away: start over from a fresh list.
          this.stats.gone++;
          this.resourceVersion = '';
          this.log.info('watch history compacted (410 Gone): re-listing');
          continue;
        }
        this.log.warn({ err: (err as Error).message, retryMs }, 'list/watch failed; retrying');
        await this.clock.sleep(retryMs, this.stop$.signal);
        retryMs = Math.min(maxRetryMs, retryMs * 2);
      }
    }
  }

  /** A 400 for the field selector itself, which `matches` can stand in for. */
  private refusedFieldSelector(err: unknown): boolean {
    return !this.filterLocally && this.opts.fieldSelector !== undefined && this.opts.matches !== undefined && err instanceof ApiError && err.status === 400;
  }

  /** The field selector sent to the server (none once it refused it). */
  private get serverFieldSelector(): string | undefined {
    return this.filterLocally ? undefined : this.opts.fieldSelector;
  }

  /** Whether an object the server sent belongs in this cache. */
  private selects(obj: T): boolean {
    return !this.filterLocally || this.opts.matches === undefined || this.opts.matches(obj);
  }

  /** Lists everything and replaces the cache, telling the handlers about every key that changed or went away. */
  private async relist(): Promise<void> {
    const list = await this.client.list<T>(this.type, { namespace: this.opts.namespace, labelSelector: this.opts.labelSelector, fieldSelector: this.serverFieldSelector });
    this.stats.lists++;
    this.stats.objects += list.items.length;
    const seen = new Set<string>();
    for (const obj of list.items) {
      if (!this.selects(obj)) continue;
      const key = keyOf(obj);
      seen.add(key);
      const old = this.store.get(key);
      const kept = cached(obj);
      this.store.set(key, kept);
      if (!old || old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit(key, kept, old);
    }
    for (const [key, old] of [...this.store]) {
      if (!seen.has(key)) {
        this.store.delete(key);
        this.emit(key, undefined, old);
      }
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  /** One watch from the current resourceVersion; resolves undefined when it ended normally, else with the error. */
  private watchOnce(): Promise<unknown> {
    this.stats.watches++;
    const timeoutSeconds = this.opts.watchTimeoutSeconds ?? 240 + Math.floor(Math.random() * 60);
    return new Promise<unknown>((done) => {
      let failure: unknown;
      const onStop = () => resolve(undefined);
      // One listener per watch on the informer's stop signal, removed when the watch ends (no leak across re-watches).
      const resolve = (value: unknown) => {
        this.stop$.signal.removeEventListener('abort', onStop);
        done(value);
      };
      this.stop$.signal.addEventListener('abort', onStop, { once: true });
      this.watch = this.client.watch(
        this.type,
        { namespace: this.opts.namespace, labelSelector: this.opts.labelSelector, fieldSelector: this.serverFieldSelector, resourceVersion: this.resourceVersion, timeoutSeconds },
        (type, obj, bytes) => {
          if (type !== 'BOOKMARK') {
            this.stats.objects++;
            this.stats.bytes += bytes;
          }
          const f = this.apply(type, obj);
          if (f !== undefined && failure === undefined) {
            failure = f;
            this.watch?.abort();
            resolve(failure);
          }
        },
        (err) => resolve(failure ?? err),
      );
      if (this.stopped) this.watch.abort();
    });
  }

  /** Applies one watch event; returns an error when the watch must end (an ERROR event, e.g. 410). */
  private apply(type: WatchEventType, obj: KubeObject | ApiStatus): unknown {
    if (type === 'ERROR') {
      const status = obj as ApiStatus;
      return new ApiError(status.code ?? 0, status.reason ?? 'WatchError', `watch ${this.name}: error event ${status.code ?? ''} ${status.message ?? ''}`);
    }
    const o = obj as T;
    if (o.metadata?.resourceVersion) this.resourceVersion = o.metadata.resourceVersion;
    if (type === 'BOOKMARK') return undefined;
    const key = keyOf(o);
    const old = this.store.get(key);
    if (type === 'DELETED' || !this.selects(o)) {
      if (old === undefined) return undefined;
      this.store.delete(key);
      this.emit(key, undefined, old);
      return undefined;
    }
    if (old && isOlder(o.metadata.resourceVersion, old.metadata.resourceVersion)) return undefined;
    const kept = cached(o);
    this.store.set(key, kept);
    if (!old || old.metadata.resourceVersion !== o.metadata.resourceVersion) this.emit(key, kept, old);
    return undefined;
  }

  private emit(key: string, obj: T | undefined, old: T | undefined): void {
    for (const handler of this.handlers) {
      try {
        handler(key, obj, old);
      } catch (err) {
        this.log.error({ key, err }, 'change handler failed');
      }
    }
  }
}
