// Live WebSocket against a real recorder and RTSP camera: init then moof fragments, keyframe start for a late joiner, refusals, end.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { Fmp4StreamParser } from '../../src/media/fmp4-stream-parser.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import { waitUntil } from '@vigil/testing/processes';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson, postJson } from './helpers.js';

const TOKENS = { viewer: 'live-viewer-1', operator: 'live-operator-1' };

interface ParsedViewer {
  ws: WebSocket;
  /** What each binary message parsed to, in order. */
  messages: Array<{ kind: 'init'; init: InitSegment } | { kind: 'fragment'; fragment: MediaFragment } | { kind: 'error'; err: Error }>;
  closed: Promise<{ code: number; reason: string }>;
}

/** A ws client that parses each message on its own, so it proves every message is one whole init or moof+mdat. */
function parsedViewer(url: string, token?: string): ParsedViewer {
  const ws = new WebSocket(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  const messages: ParsedViewer['messages'] = [];
  let init: InitSegment | undefined;
  ws.on('message', (data: Buffer) => {
    const found: ParsedViewer['messages'] = [];
    let replaying = init !== undefined;
    const parser = new Fmp4StreamParser({
      onInit: (seg) => {
        if (!replaying) found.push({ kind: 'init', init: seg });
      },
      onFragment: (fragment) => found.push({ kind: 'fragment', fragment }),
      onError: (err) => found.push({ kind: 'error', err }),
    });
    // Fragments are read against the track layout of the init segment received before them.
    if (init !== undefined) parser.push(init.data);
    replaying = false;
    parser.push(data);
    const only = found[0];
    if (found.length !== 1 || only === undefined) messages.push({ kind: 'error', err: new Error(`a message held ${found.length} items`) });
    else {
      if (only.kind === 'init') init = only.init;
      messages.push(only);
    }
  });
  ws.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return { ws, messages, closed };
}

test('live WebSocket: init first, then moof fragments in real time; a late joiner starts at a keyframe; 404, 401, 4410', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 640, height: 360, fps: 25, gop: 50 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      nodeName: 'rack-1',
      stall_seconds: 5,
      auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) }, { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) }] },
      cameras: [{ id: 'lobby', source: camera.url }],
    },
  });
  t.after(() => rec.stop());
  const wsBase = rec.url.replace(/^http/, 'ws');

  await waitUntil(async () => {
    const list = await getJson(`${rec.url}/api/cameras`, TOKENS.viewer);
    return list.status === 200 && (list.body as Array<{ state: string }>)[0]?.state === 'recording';
  }, 20_000, 'the camera streams');
  const list = await getJson(`${rec.url}/api/cameras`, TOKENS.viewer);
  assert.deepEqual(list.body, [{ id: 'lobby', state: 'recording', codec: 'avc1.42C01E', width: 640, height: 360, ptz: false, ingest: 'native', ingest_fallback_reason: null, rtsp_transport: 'tcp', rtsp_transport_reason: 'automatic: TCP first', node: 'rack-1', url: null }]);
  assert.equal((await getJson(`${rec.url}/api/cameras`)).status, 401);

  // Refusals are HTTP answers to the upgrade request.
  const refused = async (url: string, token?: string): Promise<number> => {
    const ws = new WebSocket(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
    ws.on('error', () => undefined);
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
    ws.terminate();
    return res.statusCode;
  };
  assert.equal(await refused(`${wsBase}/websocket/nope`, TOKENS.viewer), 404);
  assert.equal(await refused(`${wsBase}/websocket/lobby`), 401);

  const first = parsedViewer(`${wsBase}/websocket/lobby`, TOKENS.viewer);
  await once(first.ws, 'open');
  await waitUntil(() => first.messages.length >= 20, 15_000, 'twenty messages');
  assert.equal(first.messages[0]?.kind, 'init', 'the first message is the init segment');
  assert.ok(first.messages.slice(1).every((m) => m.kind === 'fragment'), 'then only moof+mdat fragments, one per message');
  const times = first.messages.slice(1).map((m) => (m.kind === 'fragment' ? m.fragment.decodeTime : NaN));
  assert.ok(times.every((v, i) => i === 0 || v > (times[i - 1] as number)), 'decode times increase');

  // Joining mid-GOP (GOP 2 s, fragments ~200 ms): the GOP cache starts the newcomer at the last keyframe.
  for (const delayMs of [700, 1300]) {
    await new Promise((r) => setTimeout(r, delayMs));
    const late = parsedViewer(`${wsBase}/websocket/lobby`, TOKENS.viewer);
    await waitUntil(() => late.messages.length >= 3, 10_000, 'the late joiner gets data');
    assert.equal(late.messages[0]?.kind, 'init');
    const firstFragment = late.messages[1];
    assert.ok(firstFragment?.kind === 'fragment' && firstFragment.fragment.keyframe, 'the first fragment a late joiner gets is a keyframe');
    late.ws.close();
  }

  // Stopping the camera ends the stream: the viewer is closed with 4410 so players reconnect.
  assert.equal((await postJson(`${rec.url}/cameras/stop`, { id: 'lobby' }, TOKENS.operator)).status, 200);
  assert.deepEqual(await first.closed, { code: 4410, reason: 'stream ended: stopped' });
  const whileStopped = parsedViewer(`${wsBase}/websocket/lobby`, TOKENS.viewer);
  assert.deepEqual(await whileStopped.closed, { code: 4410, reason: 'camera is stopped' });
});
