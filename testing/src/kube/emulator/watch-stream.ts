// Watch responses: chunked JSON lines from a resourceVersion, initial events with the initial-events-end bookmark, bookmarks, timeouts, 410 as an ERROR event.
import type { ServerResponse } from 'node:http';
import type { FieldMatcher } from './field-selector.js';
import type { LabelMatcher } from './label-selector.js';
import type { ObjectStore, StoredEvent, StoreWatcher } from './object-store.js';
import { KubeError } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';

export interface WatchRequest {
  /** The bearer token of the client, so a cut-off can end its watches. */
  token: string | undefined;
  type: ResourceType;
  namespace: string | undefined;
  labels: LabelMatcher;
  fields: FieldMatcher;
  resourceVersion: string;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutSeconds: number;
  /** Turns an object into what this client asked for (the object itself, or a one-row Table). */
  encode(object: KubeObject): unknown;
  /** Whether `encode` is the identity (then serialized lines are shared between watchers). */
  plainObjects: boolean;
}

/** How a watch ends from the server side: dropped (connection broken) or muted (left open, silent: a hung network). */
export type WatchEnding = 'drop' | 'mute';

interface OpenWatch {
  token: string | undefined;
  end(how: WatchEnding): void;
}

/** Every open watch stream, so faults can drop them all (or one client's) and close() can end them. */
export class WatchRegistry {
  private readonly open = new Set<OpenWatch>();
  /** Serialized event lines by stored object (objects are never mutated), so N watchers cost one JSON.stringify. */
  private readonly lines = new WeakMap<KubeObject, Partial<Record<string, string>>>();

  line(eventType: string, object: KubeObject): string {
    let byType = this.lines.get(object);
    if (byType === undefined) this.lines.set(object, (byType = {}));
    return (byType[eventType] ??= `${JSON.stringify({ type: eventType, object })}\n`);
  }

  add(watch: OpenWatch): () => void {
    this.open.add(watch);
    return () => this.open.delete(watch);
  }

  get size(): number {
    return this.open.size;
  }

  endAll(how: WatchEnding = 'drop', token?: string): void {
    for (const w of [...this.open]) if (token === undefined || w.token === token) w.end(how);
  }
}

const BOOKMARK_INTERVAL_MS = 30_000;

export function serveWatch(store: ObjectStore, registry: WatchRegistry, req: WatchRequest, res: ServerResponse): void {
  const { type } = req;
  const matches = (o: KubeObject): boolean =>
    (req.namespace === undefined || o.metadata.namespace === req.namespace) && req.labels(o.metadata.labels) && req.fields(o);
  const write = (eventType: string, object: unknown): void => {
    res.write(`${JSON.stringify({ type: eventType, object })}\n`);
  };
  const send = (eventType: string, object: KubeObject): void => {
    if (req.plainObjects) res.write(registry.line(eventType, object));
    else write(eventType, req.encode(object));
  };
  let lastRv = store.currentRv;
  const deliver = (ev: StoredEvent): void => {
    lastRv = ev.rv;
    const now = matches(ev.object);
    const before = ev.previous !== undefined && ev.type !== 'ADDED' && matches(ev.previous);
    // An object entering or leaving the selection is ADDED or DELETED for this watcher, as the real watch cache does.
    if (ev.type === 'DELETED') {
      if (before || now) send('DELETED', ev.object);
    } else if (now && !before) send('ADDED', ev.object);
    else if (now && before) send('MODIFIED', ev.object);
    else if (!now && before) send('DELETED', ev.object);
  };

  const buffered: StoredEvent[] = [];
  let replaying = true;
  const watcher: StoreWatcher = { deliver: (ev) => (replaying ? buffered.push(ev) : deliver(ev)), end: () => finish() };

  const fromInitial = req.sendInitialEvents || req.resourceVersion === '' || req.resourceVersion === '0';
  const startRv = fromInitial ? store.currentRv : Number(req.resourceVersion);
  if (!fromInitial && !Number.isFinite(startRv)) throw new KubeError(400, 'BadRequest', `invalid resource version: ${req.resourceVersion}`);

  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let replay: StoredEvent[];
  try {
    replay = store.watch(type.storageKey, startRv, watcher);
  } catch (err) {
    if (err instanceof KubeError) {
      write('ERROR', err.toStatus());
      res.end();
      return;
    }
    throw err;
  }

  let closed = false;
  const stop = (): void => {
    if (closed) return;
    closed = true;
    store.unwatch(type.storageKey, watcher);
    clearInterval(bookmarks);
    clearTimeout(timeout);
    unregister();
  };
  const finish = (): void => {
    if (closed) return;
    stop();
    res.end();
  };
  const unregister = registry.add({
    token: req.token,
    end: (how) => {
      stop();
      // A dropped watch is a broken connection to the client, not a clean end; a muted one just goes silent.
      if (how === 'drop') res.socket?.destroy();
    },
  });

  if (fromInitial) {
    const initial = store.list(type.storageKey, type.namespaced ? req.namespace : undefined).filter(matches);
    for (const o of initial) send('ADDED', o);
    lastRv = startRv;
    if (req.sendInitialEvents && req.allowBookmarks) {
      write('BOOKMARK', { kind: type.kind, apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`, metadata: { resourceVersion: String(startRv), annotations: { 'k8s.io/initial-events-end': 'true' } } });
    }
  }
  for (const ev of replay) deliver(ev);
  replaying = false;
  for (const ev of buffered.splice(0)) deliver(ev);

  const bookmarks = setInterval(() => {
    if (req.allowBookmarks) write('BOOKMARK', { kind: type.kind, apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`, metadata: { resourceVersion: String(Math.max(lastRv, store.currentRv)) } });
  }, BOOKMARK_INTERVAL_MS);
  bookmarks.unref();
  const timeout = setTimeout(finish, req.timeoutSeconds * 1000);
  timeout.unref();
  res.on('close', finish);
}
