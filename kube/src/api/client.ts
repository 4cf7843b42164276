// KubeClient: JSON REST (get, list, create, replace, merge patch, server-side apply, delete) and watch against the API server, with the credentials and TLS of a client-node KubeConfig.
//
// client-node supplies the configuration (kubeconfig file or in-cluster ServiceAccount, tokens, certificates) and the
// request credentials. Requests and watches go through one small HTTP function so that every object in the caches has
// the same JSON shape (client-node's typed APIs turn times into Date objects, its watches do not) and every call can be
// timed out and aborted (client-node's Watch cannot be aborted before the server answers): an API server that stops
// answering must not freeze a reconcile, an informer or the leader's renewal.
import http from 'node:http';
import https from 'node:https';
import { KubeConfigClass, type KubeConfig } from './kubeconfig.js';
import { collectionPath, objectPath, type ResourceType } from './resources.js';
import type { ApiStatus, KubeList, KubeObject } from './types.js';

export class ApiError extends Error {
  readonly status: number;
  readonly reason: string;
  /** The API server's own message (the Status `message`), without the method and path this error adds. */
  readonly apiMessage: string;
  /** The Retry-After the server sent with the answer (429, 503), in seconds. */
  retryAfterSeconds: number | undefined;
  constructor(status: number, reason: string, message: string, apiMessage = message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
    this.apiMessage = apiMessage;
  }
}

/** How often a request turned away with 429 is sent again, and the longest Retry-After honoured. */
const TOO_MANY_REQUESTS_RETRIES = 5;
const MAX_RETRY_AFTER_SECONDS = 5;

/** Resolves after `ms`, or at once when `signal` aborts (the caller's request then fails on its aborted signal). */
function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.status === 404;
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.status === 409;
export const isAlreadyExists = (err: unknown): boolean => err instanceof ApiError && err.status === 409 && err.reason === 'AlreadyExists';
export const isGone = (err: unknown): boolean => err instanceof ApiError && err.status === 410;
export const isForbidden = (err: unknown): boolean => err instanceof ApiError && err.status === 403;
export const isInvalid = (err: unknown): boolean => err instanceof ApiError && err.status === 422;

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  timeoutMs?: number;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  /** The server ends the watch after this long (the informer then re-watches). */
  timeoutSeconds: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchHandle {
  abort(): void;
}

export interface KubeClientOptions {
  /** Default timeout of one request (a watch has none: it ends by its own timeoutSeconds). */
  requestTimeoutMs?: number;
  userAgent?: string;
}

/** The reset of a kept-alive connection as a request was written to it (the server had closed it meanwhile). */
class StaleConnectionError extends Error {
  constructor(readonly reset: Error) {
    super(reset.message);
  }
}

export class KubeClient {
  readonly config: KubeConfig;
  private readonly server: URL;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private agent: http.Agent | undefined;

  constructor(config: KubeConfig, opts: KubeClientOptions = {}) {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig names no current cluster');
    this.config = config;
    this.server = new URL(cluster.server);
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.userAgent = opts.userAgent ?? 'vigil-operator';
  }

  /** The namespace of the kubeconfig's current context, if it names one. */
  contextNamespace(): string | undefined {
    return this.config.getContextObject(this.config.getCurrentContext())?.namespace || undefined;
  }

  /**
   * One API request. A 429 (priority and fairness turning it away, or a resource's storage re-initializing after its
   * CRD changed) was not carried out: it is sent again after the Retry-After the server asks for, up to
   * TOO_MANY_REQUESTS_RETRIES times, as client-go does. A request whose kept-alive connection the server had just
   * closed is sent once more on a new one.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#requestOnce<T>(method, path, opts);
      } catch (err) {
        // Sent again at once on a new connection, as Node's documentation advises for a reused socket's reset.
        if (err instanceof StaleConnectionError && attempt === 0 && !opts.signal?.aborted) continue;
        if (err instanceof StaleConnectionError) throw err.reset;
        if (!(err instanceof ApiError) || err.status !== 429 || attempt >= TOO_MANY_REQUESTS_RETRIES || opts.signal?.aborted) throw err;
        await abortableDelay(Math.min(err.retryAfterSeconds ?? 1, MAX_RETRY_AFTER_SECONDS) * 1000, opts.signal);
      }
    }
  }

  async #requestOnce<T>(method: string, path: string, opts: RequestOptions): Promise<T> {
    const url = new URL(this.server.href.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(opts.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const { headers, agent, transport } = await this.prepare(url);
    const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
    if (body) {
      headers['content-type'] = opts.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    }
    const timeoutMs = opts.timeoutMs ?? this.requestTimeoutMs;
    // A local controller, not AbortSignal.any(): the caller's signal lives as long as the leadership, and every
    // request would otherwise leave a listener on it.
    const local = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      local.abort();
    }, timeoutMs);
    const onAbort = () => local.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) local.abort();
    let answer: { status: number; text: string; retryAfter: string | undefined };
    try {
      answer = await new Promise<{ status: number; text: string; retryAfter: string | undefined }>((resolve, reject) => {
        const req = transport.request(url, { method, headers, agent, signal: local.signal }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] }));
          res.on('error', reject);
        });
        req.on('error', (err) => {
          if (timedOut) return reject(new ApiError(0, 'Timeout', `${method} ${path}: no answer within ${timeoutMs} ms`));
          // A kept-alive connection the server closed as this request went out on it: nothing reached the server.
          if (req.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') return reject(new StaleConnectionError(err));
          reject(err);
        });
        req.end(body);
      });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
    const { status, text, retryAfter } = answer;
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300) return parsed as T;
    const st = (parsed ?? {}) as ApiStatus;
    const err = new ApiError(status, st.reason ?? String(status), `${method} ${path}: ${status} ${st.message ?? text.slice(0, 200)}`, st.message ?? text.slice(0, 1000));
    const seconds = Number(retryAfter);
    if (retryAfter !== undefined && Number.isFinite(seconds) && seconds >= 0) err.retryAfterSeconds = seconds;
    throw err;
  }

  /** Every page of a list (limit/continue), with the list's resourceVersion to watch from. */
  async list<T extends KubeObject>(type: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.request<KubeList<T>>('GET', collectionPath(type, opts.namespace), {
        query: { labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector, limit: 500, continue: cont },
        timeoutMs: opts.timeoutMs ?? 30_000,
      });
      items.push(...(page.items ?? []));
      cont = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (cont);
    return { metadata: { resourceVersion }, items };
  }

  /** The object, or undefined when it does not exist. */
  async get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string, opts: RequestOptions = {}): Promise<T | undefined> {
    try {
      return await this.request<T>('GET', objectPath(type, namespace, name), opts);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  create<T extends KubeObject>(type: ResourceType, obj: T, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>('POST', collectionPath(type, obj.metadata.namespace), { ...opts, body: obj });
  }

  /** PUT with the object's resourceVersion: 409 when someone else wrote it first. A subresource: its own path (a CSR's approval). */
  replace<T extends KubeObject>(type: ResourceType, obj: T, opts: RequestOptions & { subresource?: 'status' | 'approval' } = {}): Promise<T> {
    const { subresource, ...rest } = opts;
    return this.request<T>('PUT', objectPath(type, obj.metadata.namespace, obj.metadata.name ?? '', subresource), { ...rest, body: obj });
  }

  mergePatch<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string, patch: unknown, opts: RequestOptions = {}): Promise<T> {
    return this.request<T>('PATCH', objectPath(type, namespace, name), { ...opts, body: patch, contentType: 'application/merge-patch+json' });
  }

  /**
   * Server-side apply of `obj` (apiVersion, kind, metadata.name and the fields this manager owns) as `fieldManager`.
   * With `subresource: 'status'` only the status is applied. `force` takes over fields another manager set (the
   * answer is otherwise 409 for a field another manager owns with a different value). JSON is valid YAML.
   */
  apply<T extends KubeObject>(type: ResourceType, obj: T, opts: RequestOptions & { fieldManager: string; force?: boolean; subresource?: 'status' }): Promise<T> {
    const { fieldManager, force, subresource, ...rest } = opts;
    const path = objectPath(type, obj.metadata.namespace, obj.metadata.name ?? '', subresource);
    return this.request<T>('PATCH', path, { ...rest, body: obj, contentType: 'application/apply-patch+yaml', query: { ...rest.query, fieldManager, force: force ? 'true' : undefined } });
  }

  /** Deletes (optionally only the given uid); a missing object is not an error. */
  async delete(type: ResourceType, namespace: string | undefined, name: string, opts: RequestOptions & { uid?: string; gracePeriodSeconds?: number } = {}): Promise<void> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };
    if (opts.uid) body.preconditions = { uid: opts.uid };
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    try {
      await this.request('DELETE', objectPath(type, namespace, name), { ...opts, body });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * Watches a collection from a resourceVersion. `onEvent` gets each event; `onDone` once, when the stream ends
   * (err undefined: closed normally, e.g. after timeoutSeconds) or fails (ApiError 410 when the version is gone,
   * a timeout when no answer comes). Aborting ends it without calling `onDone`.
   */
  watch(
    type: ResourceType,
    opts: WatchOptions,
    /** `bytes`: the length of the event's line as it came (for the watch-traffic figures). */
    onEvent: (type: WatchEventType, obj: KubeObject | ApiStatus, bytes: number) => void,
    onDone: (err?: unknown) => void,
  ): WatchHandle {
    const controller = new AbortController();
    let finished = false;
    const finish = (err?: unknown) => {
      if (finished) return;
      finished = true;
      controller.abort();
      onDone(err);
    };
    const query = {
      watch: 'true', resourceVersion: opts.resourceVersion, timeoutSeconds: opts.timeoutSeconds, allowWatchBookmarks: 'true',
      labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector,
    };
    // No event (not even a bookmark) for this long after the server's own end of the watch: the connection is dead.
    const idleMs = (opts.timeoutSeconds + 15) * 1000;
    let idle = setTimeout(() => finish(new ApiError(0, 'Timeout', `watch ${type.plural}: silent for ${idleMs} ms`)), idleMs);
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(new ApiError(0, 'Timeout', `watch ${type.plural}: silent for ${idleMs} ms`)), idleMs);
    };
    this.stream(collectionPath(type, opts.namespace), query, controller.signal, (line) => {
      touch();
      let event: { type?: string; object?: KubeObject | ApiStatus };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        return finish(new Error(`watch ${type.plural}: unreadable event`));
      }
      if (event.type && event.object) onEvent(event.type as WatchEventType, event.object, Buffer.byteLength(line));
    }).then(
      () => finish(),
      (err: unknown) => finish(err),
    ).finally(() => clearTimeout(idle));
    return {
      abort: () => {
        finished = true;
        clearTimeout(idle);
        controller.abort();
      },
    };
  }

  /** GET of a streaming (newline-delimited JSON) answer; resolves when the server closes it. */
  private async stream(path: string, query: Record<string, string | number | undefined>, signal: AbortSignal, onLine: (line: string) => void): Promise<void> {
    const url = new URL(this.server.href.replace(/\/$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const { headers, agent, transport } = await this.prepare(url);
    await new Promise<void>((resolve, reject) => {
      // Not the request's own `signal` option: aborted after the answer began (an informer ending its watch on an
      // ERROR event, from inside the data handler), Node 20 emits that AbortError where no listener is, and the
      // process dies of it. Destroyed without an error instead, the watch simply ends.
      const onAbort = (): void => {
        req.destroy();
        resolve();
      };
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      const req = transport.request(url, { method: 'GET', headers, agent }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let st: ApiStatus = {};
            try {
              st = JSON.parse(text) as ApiStatus;
            } catch {
              // not a Status object
            }
            reject(new ApiError(res.statusCode ?? 0, st.reason ?? String(res.statusCode), `watch ${path}: ${res.statusCode} ${st.message ?? text.slice(0, 200)}`));
          });
          res.on('error', reject);
          return;
        }
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (line !== '') onLine(line);
          }
        });
        res.on('end', () => {
          if (buffered.trim() !== '') onLine(buffered.trim());
          resolve();
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error(`watch ${path}: connection lost`)));
      });
      req.on('error', reject);
      req.on('close', () => signal.removeEventListener('abort', onAbort));
      req.end();
    });
  }

  /** Headers (credentials from the kubeconfig, fresh each call: tokens rotate), the keep-alive agent and transport. */
  private async prepare(url: URL): Promise<{ headers: Record<string, string | number>; agent: http.Agent; transport: typeof http | typeof https }> {
    const reqOpts: https.RequestOptions = { headers: {} };
    await this.config.applyToHTTPSOptions(reqOpts);
    // One keep-alive agent with the kubeconfig's TLS settings, instead of the new agent client-node makes per call.
    this.agent ??= url.protocol === 'https:' ? new https.Agent({ ...(reqOpts.agent as https.Agent).options, keepAlive: true }) : new http.Agent({ keepAlive: true });
    const headers: Record<string, string | number> = {
      ...(reqOpts.headers as Record<string, string>),
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (reqOpts.auth) headers.authorization = `Basic ${Buffer.from(reqOpts.auth).toString('base64')}`;
    return { headers, agent: this.agent, transport: url.protocol === 'https:' ? https : http };
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent?.destroy();
  }
}

/** KUBECONFIG (or ~/.kube/config) when present, else the in-cluster ServiceAccount. */
export function loadKubeConfig(env: NodeJS.ProcessEnv): KubeConfig {
  const kc = new KubeConfigClass();
  if (env.KUBECONFIG) kc.loadFromFile(env.KUBECONFIG);
  else if (env.KUBERNETES_SERVICE_HOST) kc.loadFromCluster();
  else kc.loadFromDefault();
  return kc;
}
