// WebSocket /websocket/{camera_id}: checks path, token and camera on the upgrade request, answers HTTP errors before any upgrade.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { pendingCertificateError, type CertificateWait } from './certificate-gate.js';
import { CAMERA_ID_PATTERN } from '../config/schema.js';
import type { CameraLocator } from '../cameras/camera-locator.js';
import type { TokenAuthenticator } from './auth.js';
import { redirectLocation } from './camera-routing.js';
import { ApiError, errorBody, ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';
import { DEFAULT_LIVE_LIMITS, LIVE_CLOSE, serveLiveViewer, type LiveLimits } from './live-viewer.js';
import type { OpenStreams, StreamTicket } from './open-streams.js';
import type { CameraControl } from './services.js';

export interface LiveSocketOptions {
  auth: TokenAuthenticator;
  cameras: CameraControl;
  locator: CameraLocator;
  log: Logger;
  /** A viewer of a camera that is not streaming yet waits this long for the init segment (stall_seconds). */
  waitForStreamMs: number;
  limits?: Partial<LiveLimits>;
  /** Open live viewers, limited per node and per token (429 past either). */
  streams: OpenStreams;
  /** While this answers a reason, upgrades are refused 503 certificate_pending. */
  certificateWait?: CertificateWait;
}

const LIVE_PATH = /^\/websocket\/([^/]+)$/;
/** Viewers send nothing worth reading; a big frame from one is an error. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;
/** On shutdown, sockets get this long to complete the close handshake before they are cut. */
const CLOSE_GRACE_MS = 1000;

/** Hooks the live endpoint into the app's HTTP server; sockets close when the app closes. */
export function installLiveSocket(app: FastifyInstance, opts: LiveSocketOptions): void {
  const limits: LiveLimits = { ...DEFAULT_LIVE_LIMITS, ...opts.limits };
  const log = opts.log.child({ component: 'live' });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES, perMessageDeflate: false });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => undefined);
    upgrade(req, socket, head).catch((err: unknown) => {
      log.error({ err }, 'live upgrade failed');
      rejectUpgrade(socket, 'internal_error', ERROR_CATALOGUE.internal_error.message);
    });
  };

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const waiting = opts.certificateWait?.();
    if (waiting !== undefined) {
      rejectUpgrade(socket, 'certificate_pending', pendingCertificateError(waiting).message);
      return;
    }
    const url = new URL(req.url ?? '/', 'http://upgrade.invalid');
    const match = LIVE_PATH.exec(url.pathname);
    if (match?.[1] === undefined) {
      rejectUpgrade(socket, 'not_found', `no WebSocket endpoint at ${url.pathname}`);
      return;
    }
    let cameraId: string;
    try {
      cameraId = decodeURIComponent(match[1]);
    } catch {
      cameraId = '';
    }
    let caller;
    try {
      caller = opts.auth.requireOrTicket({ headers: req.headers, query: Object.fromEntries(url.searchParams) }, 'viewer', { purpose: 'live', camera: cameraId });
    } catch (err) {
      if (err instanceof ApiError) rejectUpgrade(socket, err.code, err.message);
      else rejectUpgrade(socket, 'internal_error', ERROR_CATALOGUE.internal_error.message);
      return;
    }
    const where = CAMERA_ID_PATTERN.test(cameraId) ? await opts.locator.locate(cameraId) : ({ kind: 'unknown' } as const);
    if (where.kind === 'remote') {
      redirectUpgrade(socket, redirectLocation(where, req.headers, req.url ?? '/'));
      return;
    }
    if (where.kind === 'unknown' || opts.cameras.state(cameraId) === undefined) {
      rejectUpgrade(socket, 'camera_not_found', `camera ${cameraId} is not known on this node`);
      return;
    }
    let ticket: StreamTicket;
    try {
      ticket = opts.streams.admit('live', opts.auth.disabled ? undefined : caller.name);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      rejectUpgrade(socket, err.code, err.message, err.details);
      return;
    }
    // The connection's end, however it comes (a refused handshake, the viewer leaving, shutdown), ends the count.
    socket.once('close', () => ticket.release());
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      if (opts.cameras.state(cameraId) === undefined) {
        ws.close(LIVE_CLOSE.cameraNotFound, 'camera is not known on this node');
        return;
      }
      log.info({ camera: cameraId, viewers: wss.clients.size }, 'live viewer joined');
      serveLiveViewer({ ws, cameraId, hub: opts.cameras.liveHub(cameraId), waitForStreamMs: opts.waitForStreamMs, limits, log });
    });
  };
  app.server.on('upgrade', onUpgrade);

  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    const sockets = [...wss.clients];
    const gone = sockets.map((ws) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()))));
    for (const ws of sockets) ws.close(LIVE_CLOSE.goingAway, 'server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(gone), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    for (const ws of sockets) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
}

/** Answers the upgrade request with a plain HTTP error (the error body of the API) and closes the connection. */
function rejectUpgrade(socket: Duplex, code: ErrorCode, message: string, details?: Record<string, unknown>): void {
  const status = ERROR_CATALOGUE[code].status;
  const body = JSON.stringify(errorBody(code, message, details));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
  ];
  if (code === 'unauthorized') head.push('WWW-Authenticate: Bearer realm="vigil"');
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

/** Another node records the camera: a 307 naming it (browsers do not follow it for WebSockets; the live page asks /api/cameras instead). */
function redirectUpgrade(socket: Duplex, location: string): void {
  socket.end(['HTTP/1.1 307 Temporary Redirect', `Location: ${location}`, 'Connection: close', 'Content-Length: 0', 'Cache-Control: no-store'].join('\r\n') + '\r\n\r\n');
}
