// The emulator's etcd: objects per resource bucket, one global resourceVersion counter, a bounded event history per bucket, and watchers.
import { gone } from './status-errors.js';
import type { KubeObject } from './types.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  type: WatchEventType;
  object: KubeObject;
  /** The object as it was before this change (MODIFIED, DELETED), for selector transitions. */
  previous: KubeObject | undefined;
  rv: number;
}

export interface StoreWatcher {
  deliver(event: StoredEvent): void;
  /** The bucket went away (its CRD was deleted): the watch ends. */
  end(): void;
}

export type ChangeListener = (storageKey: string, event: StoredEvent) => void;

class Bucket {
  readonly objects = new Map<string, KubeObject>();
  /** Events in rv order; `head` is the first still kept (the array is trimmed in batches). */
  history: StoredEvent[] = [];
  head = 0;
  /** The rv of the newest event no longer kept: watches from an older rv get 410 Gone. */
  horizon = 0;
  readonly watchers = new Set<StoreWatcher>();
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class ObjectStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly listeners = new Set<ChangeListener>();
  private rv = 0;

  constructor(private readonly historyLimit: number) {}

  get currentRv(): number {
    return this.rv;
  }

  get(storageKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.buckets.get(storageKey)?.objects.get(objectKey(namespace, name));
  }

  /** Every object of a bucket, or of one namespace of it. Callers must not mutate them. */
  list(storageKey: string, namespace?: string): KubeObject[] {
    const bucket = this.buckets.get(storageKey);
    if (bucket === undefined) return [];
    const all = [...bucket.objects.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** The buckets that hold objects (for the garbage collector and namespace deletion). */
  storageKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Stamps a new resourceVersion on `object` (a fresh copy owned by the store) and stores it. */
  put(storageKey: string, object: KubeObject): KubeObject {
    const bucket = this.bucket(storageKey);
    const key = objectKey(object.metadata.namespace, object.metadata.name as string);
    const previous = bucket.objects.get(key);
    const rv = ++this.rv;
    object.metadata.resourceVersion = String(rv);
    bucket.objects.set(key, object);
    this.record(storageKey, bucket, { type: previous === undefined ? 'ADDED' : 'MODIFIED', object, previous, rv });
    return object;
  }

  /** Deletes the object with `object`'s key; the DELETED event carries `object`'s content (its final state). */
  remove(storageKey: string, object: KubeObject): KubeObject | undefined {
    const bucket = this.buckets.get(storageKey);
    const key = objectKey(object.metadata.namespace, object.metadata.name as string);
    const previous = bucket?.objects.get(key);
    if (bucket === undefined || previous === undefined) return undefined;
    bucket.objects.delete(key);
    const rv = ++this.rv;
    const deleted: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    this.record(storageKey, bucket, { type: 'DELETED', object: deleted, previous, rv });
    return deleted;
  }

  /** Drops a whole bucket (a CRD went away); its watches end, as the real server closes them. */
  dropBucket(storageKey: string): void {
    const bucket = this.buckets.get(storageKey);
    this.buckets.delete(storageKey);
    for (const w of bucket?.watchers ?? []) w.end();
  }

  /**
   * Events after `fromRv` still in history, and registers `watcher` for the ones to come.
   * Throws 410 Gone when events after `fromRv` were already forgotten.
   */
  watch(storageKey: string, fromRv: number, watcher: StoreWatcher): StoredEvent[] {
    const bucket = this.bucket(storageKey);
    if (fromRv < bucket.horizon) {
      throw gone(`too old resource version: ${fromRv} (${bucket.horizon + 1})`);
    }
    const replay: StoredEvent[] = [];
    for (let i = bucket.head; i < bucket.history.length; i++) {
      const ev = bucket.history[i] as StoredEvent;
      if (ev.rv > fromRv) replay.push(ev);
    }
    bucket.watchers.add(watcher);
    return replay;
  }

  unwatch(storageKey: string, watcher: StoreWatcher): void {
    this.buckets.get(storageKey)?.watchers.delete(watcher);
  }

  /** Whether a list's continue token or a watch from `rv` can still be honoured. */
  isTooOld(storageKey: string, rv: number): boolean {
    return rv < this.bucket(storageKey).horizon;
  }

  /**
   * Forgets all history: a watch from any resourceVersion handed out before now gets 410 Gone. The counter moves
   * on by one so that even a client that saw the very latest version must re-list.
   */
  compact(): void {
    this.rv++;
    for (const bucket of this.buckets.values()) {
      bucket.history = [];
      bucket.head = 0;
      bucket.horizon = this.rv;
    }
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private bucket(storageKey: string): Bucket {
    let bucket = this.buckets.get(storageKey);
    if (bucket === undefined) {
      bucket = new Bucket();
      // A bucket born now has missed nothing before now.
      bucket.horizon = 0;
      this.buckets.set(storageKey, bucket);
    }
    return bucket;
  }

  private record(storageKey: string, bucket: Bucket, event: StoredEvent): void {
    bucket.history.push(event);
    const kept = bucket.history.length - bucket.head;
    if (kept > this.historyLimit) {
      const dropped = bucket.history[bucket.head] as StoredEvent;
      bucket.horizon = dropped.rv;
      bucket.head++;
      if (bucket.head > 1024 && bucket.head * 2 > bucket.history.length) {
        bucket.history = bucket.history.slice(bucket.head);
        bucket.head = 0;
      }
    }
    for (const w of [...bucket.watchers]) w.deliver(event);
    for (const l of [...this.listeners]) l(storageKey, event);
  }
}
