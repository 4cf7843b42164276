// An HTTPS proxy in front of kube-apiserver for the faults a running control plane cannot be asked for: one client cut
// off (by its bearer token), every watch dropped at once, every request answered 500 for a while. Everything else is
// passed through untouched, so the real API server still authenticates, authorizes and answers each request.
import { createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ControlPlanePki } from './pki.js';
import { readFileSync } from 'node:fs';

export type CutOffMode = 'refuse' | 'hang';

export interface ApiFaults {
  /** Requests that carry `token` fail from now on: the connection closed at once ('refuse') or never answered ('hang'). */
  cutOff(token: string, mode: CutOffMode): void;
  restore(token: string): void;
  /** Ends every watch in flight (as an API server restart or a load balancer's idle timeout does). */
  dropWatches(): void;
  /**
   * History compacted up to now: the next watch of each client and collection that resumes from a resourceVersion up
   * to now is answered with a 410 Expired ERROR event, so the client must list again (what a client sees after etcd
   * compacted past it, or after kube-apiserver's watch cache lost its window; neither can be asked for on demand).
   */
  compactHistory(): Promise<void>;
  /** Holds every request this long before passing it on (0: none). */
  setLatency(ms: number): void;
  /** Answers every request with `status` (an API Status body) for `forMs`. */
  failRequests(o: { status: number; forMs: number }): void;
  reset(): void;
}

export interface ApiFaultProxy extends ApiFaults {
  readonly url: string;
  close(): Promise<void>;
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined;
}

function statusBody(code: number): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'injected by the test fault proxy', reason: code === 500 ? 'InternalError' : code === 429 ? 'TooManyRequests' : 'ServiceUnavailable', code });
}

/** Starts the proxy on a loopback port, serving the API server's own certificate (the same names, the same CA). */
export async function startApiFaultProxy(upstream: string, pki: ControlPlanePki): Promise<ApiFaultProxy> {
  const cut = new Map<string, CutOffMode>();
  const watches = new Map<ServerResponse, string | undefined>();
  const hanging = new Set<ServerResponse>();
  let failing: { status: number; until: number } | undefined;
  let compactedBefore = 0;
  const expiredWatchers = new Set<string>();
  let latencyMs = 0;
  const ca = readFileSync(pki.caFile);
  const target = new URL(upstream);

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const isWatch = /[?&]watch=(true|1)/.test(req.url ?? '');
    const upstreamReq = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, ca, servername: 'localhost' }, (upstreamRes) => {
      res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
      if (isWatch) {
        watches.set(res, bearer(req));
        res.on('close', () => watches.delete(res));
      }
      upstreamRes.pipe(res);
      res.on('close', () => upstreamRes.destroy());
    });
    upstreamReq.on('error', () => res.destroy());
    req.pipe(upstreamReq);
    // The client gone (its response closed before the end): the upstream request goes too.
    res.on('close', () => { if (!res.writableFinished) upstreamReq.destroy(); });
  };

  const server: Server = createServer({ cert: readFileSync(pki.servingCertFile), key: readFileSync(pki.servingKeyFile) }, (req, res) => {
    const token = bearer(req);
    const mode = token === undefined ? undefined : cut.get(token);
    if (mode === 'refuse') {
      req.socket.destroy();
      return;
    }
    if (mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    const url = new URL(req.url ?? '/', 'https://proxy');
    const since = Number(url.searchParams.get('resourceVersion') ?? '0');
    // Each watcher (token and collection) resuming from before the compaction is told once that its version is gone.
    const watcher = `${token ?? ''} ${url.pathname}`;
    if (url.searchParams.get('watch') === 'true' && since > 0 && since <= compactedBefore && !expiredWatchers.has(watcher)) {
      expiredWatchers.add(watcher);
      res.writeHead(200, { 'content-type': 'application/json' });
      const expired = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${since} (${compactedBefore})`, reason: 'Expired', code: 410 };
      res.end(`${JSON.stringify({ type: 'ERROR', object: expired })}\n`);
      return;
    }
    if (failing !== undefined && Date.now() < failing.until) {
      res.writeHead(failing.status, { 'content-type': 'application/json', ...(failing.status === 429 ? { 'retry-after': '1' } : {}) }).end(statusBody(failing.status));
      return;
    }
    if (latencyMs > 0) setTimeout(() => forward(req, res), latencyMs).unref();
    else forward(req, res);
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address');

  const dropAll = (responses: Iterable<ServerResponse>): void => {
    for (const res of [...responses]) res.destroy();
  };
  return {
    url: `https://127.0.0.1:${address.port}`,
    cutOff(token, mode) {
      cut.set(token, mode);
      // A client's watches already open would carry on: close them so the cut-off is felt at once.
      dropAll([...watches].filter(([, owner]) => owner === token).map(([res]) => res));
    },
    restore(token) {
      cut.delete(token);
      dropAll(hanging);
    },
    dropWatches: () => dropAll(watches.keys()),
    async compactHistory() {
      // The current revision, read as the administrator: every resourceVersion before it is history.
      const list = await new Promise<string>((resolve, reject) => {
        request({ host: target.hostname, port: target.port, path: '/api/v1/namespaces?limit=1', ca, cert: readFileSync(pki.adminCertFile), key: readFileSync(pki.adminKeyFile) }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => { text += chunk; });
          res.on('end', () => resolve(text));
        }).on('error', reject).end();
      });
      compactedBefore = Number((JSON.parse(list) as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '0');
      expiredWatchers.clear();
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
    },
    failRequests(o) {
      failing = { status: o.status, until: Date.now() + o.forMs };
    },
    reset() {
      cut.clear();
      failing = undefined;
      compactedBefore = 0;
      latencyMs = 0;
      dropAll(hanging);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
