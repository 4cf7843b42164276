// The HTTP front: connection tracking, faults, authentication, authorization, and routing to discovery, OpenAPI, resources and the admin API.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { handleAdmin, type AdminControls } from './admin-api.js';
import { actingUser } from './impersonation.js';
import { wantsAggregatedDiscovery } from './content-negotiation.js';
import { aggregatedDiscovery, apiGroupDocument, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import type { FaultState } from './faults.js';
import { pinnedName } from './field-selector.js';
import { readBody } from './http-body.js';
import type { OpenApiDocuments } from './openapi.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { requestInfo } from './request-info.js';
import { bearerToken } from './request-options.js';
import { handleResource, type Reply, type ResourceHandlerDeps } from './resource-handlers.js';
import { asKubeError, badRequest, forbidden, injectedFailure, KubeError, pathNotFound, unauthorized } from './status-errors.js';
import type { ServingCertificates } from './tls-certificates.js';
import type { TokenAuthority } from './token-authority.js';
import type { UserInfo } from './types.js';
import { isPathSegmentName } from './validation-formats.js';

export interface HttpServerDeps extends ResourceHandlerDeps {
  faults: FaultState;
  tokens: TokenAuthority;
  rbac: RbacAuthorizer;
  openapi: OpenApiDocuments;
  admin: AdminControls;
  certificates: ServingCertificates;
  serverAddress(): string;
  /** Called with one line per request (method, URL, content type, status) when set. */
  requestLog?: (line: string) => void;
}

const ANONYMOUS: UserInfo = { username: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] };
const PUBLIC_PATHS = new Set(['/version', '/healthz', '/livez', '/readyz']);

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  const body = JSON.stringify(reply.body);
  const headers: Record<string, string | string[]> = {
    'Content-Type': reply.contentType ?? 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(Buffer.byteLength(body)),
  };
  if (reply.warnings !== undefined && reply.warnings.length > 0) headers.Warning = reply.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(reply.status, headers);
  res.end(body);
}

function sendError(res: ServerResponse, err: unknown): void {
  const e = asKubeError(err);
  // Only 429 carries Retry-After: Go clients would otherwise retry injected 5xx answers on their own and hide them.
  if (e.code === 429 && !res.headersSent) res.setHeader('Retry-After', '1');
  send(res, { status: e.code, body: e.toStatus() });
}

/**
 * One port, two protocols: plain HTTP (the emulator's `url`, for fetch and client-node) and TLS (the kubeconfigs it
 * writes, because client-go sends bearer tokens only over TLS). The first byte of a connection tells which.
 */
export class KubeHttpServer {
  readonly server: Server;
  private readonly http: HttpServer;
  private readonly https: HttpsServer;
  private readonly sockets = new Set<Socket>();
  private readonly socketTokens = new Map<Socket, string>();

  constructor(private readonly deps: HttpServerDeps) {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      const log = deps.requestLog;
      if (log !== undefined) {
        const started = Date.now();
        res.on('finish', () => log(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['content-type'] ?? '-'} -> ${res.statusCode} (${Date.now() - started} ms) ${req.headers['user-agent'] ?? ''}`));
      }
      this.handle(req, res).catch((err: unknown) => sendError(res, err));
    };
    const options = { keepAliveTimeout: 120_000, headersTimeout: 130_000, requestTimeout: 0 };
    this.http = createHttpServer(options, handler);
    this.https = createHttpsServer({ ...options, key: deps.certificates.keyPem, cert: deps.certificates.certPem }, handler);
    this.server = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.once('readable', () => {
        const first = socket.read(1) as Buffer | null;
        if (first === null) return;
        socket.unshift(first);
        (first[0] === 0x16 ? this.https : this.http).emit('connection', socket);
      });
    });
    const forget = (socket: Socket): void => {
      socket.on('close', () => this.socketTokens.delete(socket));
    };
    this.http.on('connection', forget);
    this.https.on('secureConnection', forget);
    this.https.on('tlsClientError', () => undefined);
  }

  /** Breaks every connection that carried `token` (a cut-off client loses its open watches too). */
  breakConnectionsOf(token: string, how: 'drop' | 'mute'): void {
    this.deps.watches.endAll(how, token);
    if (how === 'mute') return;
    for (const [socket, t] of this.socketTokens) if (t === token) socket.destroy();
  }

  async close(): Promise<void> {
    this.deps.watches.endAll('drop');
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    for (const s of this.socketTokens.keys()) s.destroy();
    this.http.close();
    this.https.close();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
    const token = bearerToken(req);
    const isAdminPath = path.startsWith('/emulator/');
    const { faults } = this.deps;
    if (token !== undefined) this.socketTokens.set(req.socket, token);
    if (!isAdminPath) {
      const mode = faults.anyCutOff ? faults.modeFor(token) : undefined;
      if (mode === 'refuse') {
        req.socket.destroy();
        return;
      }
      if (mode === 'hang') {
        faults.holdHung(token as string, req.socket);
        return;
      }
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      const failure = faults.takeFailure(token);
      if (failure !== undefined) {
        await readBody(req).catch(() => undefined);
        sendError(res, injectedFailure(failure));
        return;
      }
    }

    let user: UserInfo;
    if (token === undefined) user = ANONYMOUS;
    else {
      const authenticated = this.deps.tokens.authenticate(token);
      if (authenticated === undefined) throw unauthorized();
      user = authenticated;
    }
    if (!isAdminPath) user = actingUser(req, user, this.deps.rbac);

    if (isAdminPath) {
      if (!user.groups.includes('system:masters')) throw forbidden(`forbidden: User "${user.username}" cannot use the emulator's admin API`);
      const raw = await readBody(req);
      let body: unknown;
      try {
        body = raw.length === 0 ? undefined : (JSON.parse(raw.toString('utf8')) as unknown);
      } catch {
        throw badRequest('the body must be JSON');
      }
      send(res, { status: 200, body: await handleAdmin(this.deps.admin, req.method ?? 'GET', path, body) });
      return;
    }

    const info = requestInfo(req.method ?? 'GET', path, url.searchParams);
    if (info.kind === 'nonResource') {
      if (!(PUBLIC_PATHS.has(path) && info.verb === 'get') && !this.deps.rbac.allowsPath(user, info.verb, path)) throw this.deps.rbac.pathForbidden(user, info.verb, path);
      this.serveNonResource(req, res, path);
      return;
    }
    // A list or watch pinned to one name by `fieldSelector=metadata.name=x` is authorized as that name, so
    // resourceNames rules allow it (apiserver's requestinfo does the same).
    const pinned = info.name === undefined && (info.verb === 'list' || info.verb === 'watch') ? pinnedName(url.searchParams.get('fieldSelector')) : undefined;
    const name = info.name ?? (pinned !== undefined && isPathSegmentName(pinned).length === 0 ? pinned : undefined);
    const attributes = {
      verb: info.verb,
      group: info.group,
      resource: info.resource,
      ...(info.subresource !== undefined ? { subresource: info.subresource } : {}),
      ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
      ...(name !== undefined ? { name } : {}),
    };
    if (!this.deps.rbac.allowsResource(user, attributes)) throw this.deps.rbac.resourceForbidden(user, attributes);
    const reply = await handleResource(this.deps, info, user, req, res, url.searchParams);
    if (reply !== undefined) send(res, reply);
  }

  private serveNonResource(req: IncomingMessage, res: ServerResponse, path: string): void {
    const { registry, openapi } = this.deps;
    const aggregated = wantsAggregatedDiscovery(req.headers.accept);
    if (path === '/version') return send(res, { status: 200, body: SERVER_VERSION });
    if (path === '/healthz' || path === '/livez' || path === '/readyz') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('ok');
      return;
    }
    if (path === '/api') {
      if (aggregated) return send(res, { status: 200, body: aggregatedDiscovery(registry, true), contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
      return send(res, { status: 200, body: apiVersions(this.deps.serverAddress()) });
    }
    if (path === '/apis') {
      if (aggregated) return send(res, { status: 200, body: aggregatedDiscovery(registry, false), contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
      return send(res, { status: 200, body: apiGroupList(registry) });
    }
    const parts = path.split('/').filter((p) => p !== '');
    if (parts[0] === 'api' && parts.length === 2) {
      const list = apiResourceList(registry, '', parts[1] as string);
      if (list !== undefined) return send(res, { status: 200, body: list });
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = apiGroupDocument(registry, parts[1] as string);
      if (doc !== undefined) return send(res, { status: 200, body: doc });
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const list = apiResourceList(registry, parts[1] as string, parts[2] as string);
      if (list !== undefined) return send(res, { status: 200, body: list });
    }
    if (path === '/openapi/v3') return send(res, { status: 200, body: openapi.index() });
    if (parts[0] === 'openapi' && parts[1] === 'v3' && parts.length >= 4) {
      const [group, version] = parts[2] === 'api' ? ['', parts[3] as string] : [parts[3] as string, parts[4] as string];
      const doc = version === undefined ? undefined : openapi.document(group, version);
      if (doc !== undefined) {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, immutable', Etag: `"${doc.hash}"`, 'Content-Length': String(Buffer.byteLength(doc.json)) });
        res.end(doc.json);
        return;
      }
    }
    throw pathNotFound();
  }
}

export { KubeError };
