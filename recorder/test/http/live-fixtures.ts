// Test support for the live endpoint: an app on port 0 over fake cameras with real hubs, and raw upgrade requests.
import { request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import type { TestContext } from 'node:test';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import { TokenAuthenticator } from '../../src/http/auth.js';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { installLiveSocket } from '../../src/http/live-socket.js';
import type { LiveLimits } from '../../src/http/live-viewer.js';
import { cameraListRoutes } from '../../src/http/routes/cameras-list.js';
import { webPageRoutes } from '../../src/http/routes/web-page.js';
import type { CameraControl } from '../../src/http/services.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { sha256 } from '../support/recorder-process.js';

export const VIEWER_TOKEN = 'live-viewer-token';

export interface LiveApp {
  url: string;
  wsUrl: string;
  app: FastifyInstance;
  /** Camera id → its hub; undefined = known but stopped. Add or remove entries freely. */
  hubs: Map<string, StreamHub | undefined>;
}

export function fakeCameras(hubs: Map<string, StreamHub | undefined>): CameraControl {
  return {
    state: (id) => (!hubs.has(id) ? undefined : hubs.get(id)?.streaming ? 'recording' : hubs.get(id) === undefined ? 'stopped' : 'stalled'),
    currentSegment: () => undefined,
    startByRequest: () => 0,
    stopByRequest: async () => 0,
    list: () => [...hubs.keys()].map((id) => ({ id, ptz: false })),
    liveHub: (id) => hubs.get(id),
  };
}

export async function startLiveApp(t: TestContext, opts: { stallSeconds?: number; limits?: Partial<LiveLimits>; authDisabled?: boolean } = {}): Promise<LiveApp> {
  const hubs = new Map<string, StreamHub | undefined>();
  const auth = new TokenAuthenticator([{ name: 'wall', role: 'viewer', sha256: sha256(VIEWER_TOKEN) }], opts.authDisabled ?? false);
  // The pieces of buildApp this endpoint involves, so the test does not depend on unrelated services.
  const app = Fastify({ forceCloseConnections: true });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  const cameras = fakeCameras(hubs);
  await app.register(cameraListRoutes, { auth, cameras });
  await app.register(webPageRoutes, {});
  installLiveSocket(app, {
    auth,
    cameras,
    log: pino({ level: 'silent' }),
    waitForStreamMs: (opts.stallSeconds ?? 10) * 1000,
    ...(opts.limits === undefined ? {} : { limits: opts.limits }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => app.close());
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}`, app, hubs };
}

/** A fragment whose first 4 bytes carry its number and the 5th its keyframe flag. */
export function numberedFragment(n: number, keyframe: boolean, bytes = 1000): MediaFragment {
  const data = Buffer.alloc(Math.max(bytes, 5));
  data.writeUInt32BE(n, 0);
  data.writeUInt8(keyframe ? 1 : 0, 4);
  return { data, keyframe, decodeTime: n * 0.2, duration: 0.2, sequenceNumber: n };
}

export function fragmentNumber(data: Buffer): { n: number; keyframe: boolean } {
  return { n: data.readUInt32BE(0), keyframe: data.readUInt8(4) === 1 };
}

export function fakeInit(): InitSegment {
  return { data: Buffer.from('ftyp-moov-init'), tracks: [] };
}

/** Sends an upgrade request; resolves with the HTTP answer when the server refuses it, or 101 when it upgraded. */
export function tryUpgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '', headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}
