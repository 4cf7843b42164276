// Test support for the live endpoint: the real app on port 0 over cameras with real hubs, and raw upgrade requests.
import { request } from 'node:http';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { CameraLocation } from '../../src/cameras/camera-locator.js';
import type { LiveLimits } from '../../src/http/live-viewer.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import type { StreamHub } from '../../src/stream/stream-hub.js';
import { hubCameras, mapLocator } from '../support/fakes.js';
import { listenTestApp, TOKENS } from '../support/test-app.js';

export const VIEWER_TOKEN = TOKENS.viewer;

export interface LiveApp {
  url: string;
  wsUrl: string;
  app: FastifyInstance;
  /** Camera id → its hub; undefined = known but stopped. Add or remove entries freely. */
  hubs: Map<string, StreamHub | undefined>;
  /** Cameras another node records: id → where. */
  remote: Map<string, Extract<CameraLocation, { kind: 'remote' }>>;
}

export async function startLiveApp(t: TestContext, opts: { stallSeconds?: number; limits?: Partial<LiveLimits>; authDisabled?: boolean } = {}): Promise<LiveApp> {
  const hubs = new Map<string, StreamHub | undefined>();
  const remote = new Map<string, Extract<CameraLocation, { kind: 'remote' }>>();
  const live = await listenTestApp(t, {
    cameras: hubCameras(hubs),
    locator: mapLocator((id) => hubs.has(id), remote),
    ...(opts.authDisabled === undefined ? {} : { authDisabled: opts.authDisabled }),
    ...(opts.stallSeconds === undefined ? {} : { stallSeconds: opts.stallSeconds }),
    ...(opts.limits === undefined ? {} : { liveLimits: opts.limits }),
  });
  return { url: live.url, wsUrl: live.wsUrl, app: live.app, hubs, remote };
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
