// Open play streams and live viewers are limited per node and per token (config `streams`): past either, 429 with the
// error body; the gauge vigil_open_streams counts them; a stream that ends frees its place.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { parsePrometheusText } from '@vigil/testing/prometheus-text';
import { waitUntil } from '@vigil/testing/processes';
import { sha256 } from '../support/recorder-process.js';
import { cameraForTest, recorderForTest, waitRecording } from './recorder-setup.js';

const TOKENS = { a: 'limits-viewer-a', b: 'limits-viewer-b' };

interface Refusal {
  status: number;
  code: string | undefined;
  scope: unknown;
}

test('play streams and live viewers: per token and per node limits answer 429 with the error body; the gauge counts them', { timeout: 120_000 }, async (t) => {
  const camera = await cameraForTest(t, { width: 320, height: 240, fps: 25, gop: 25, bitrateKbps: 300 });
  const rec = await recorderForTest(t, {
    stall_seconds: 30,
    streams: { play: { per_node: 3, per_token: 2 }, live: { per_node: 3, per_token: 2 } },
    auth: { tokens: [{ name: 'a', role: 'viewer', sha256: sha256(TOKENS.a) }, { name: 'b', role: 'viewer', sha256: sha256(TOKENS.b) }] },
    cameras: [{ id: 'gate', source: camera.url }],
  });
  const scrapeUrl = String((await rec.waitForLog((l) => typeof l['metrics_url'] === 'string'))['metrics_url']);
  const gauge = async (kind: string): Promise<number | undefined> => parsePrometheusText(await (await fetch(scrapeUrl)).text()).value('vigil_open_streams', { kind });
  await waitRecording(rec, 'gate', { token: TOKENS.a });
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await gauge('play'), 0);

  // Play windows that follow the recording for a minute: each stays open while the client holds it.
  const opened: AbortController[] = [];
  const play = async (token: string): Promise<Refusal> => {
    const now = Math.floor(Date.now() / 1000);
    const controller = new AbortController();
    const res = await fetch(`${rec.url}/api/archive/gate/play?from=${now - 1}&to=${now + 60}`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    if (res.status === 200) {
      opened.push(controller);
      return { status: 200, code: undefined, scope: undefined };
    }
    const body = (await res.json()) as { error?: { code?: string; details?: { scope?: unknown } } };
    return { status: res.status, code: body.error?.code, scope: body.error?.details?.scope };
  };
  t.after(() => opened.forEach((c) => c.abort()));
  assert.equal((await play(TOKENS.a)).status, 200);
  assert.equal((await play(TOKENS.a)).status, 200);
  assert.deepEqual(await play(TOKENS.a), { status: 429, code: 'too_many_streams', scope: 'token' }, 'a third for one token');
  assert.equal((await play(TOKENS.b)).status, 200, 'another token still gets one');
  assert.deepEqual(await play(TOKENS.b), { status: 429, code: 'too_many_streams', scope: 'node' }, 'the node is full');
  assert.equal(await gauge('play'), 3);
  // A client that leaves frees its place.
  opened.shift()?.abort();
  await waitUntil(async () => (await gauge('play')) === 2, 10_000, 'the gauge down to 2 once a client left');
  assert.equal((await play(TOKENS.a)).status, 200);

  // Live viewers: the same rule on the WebSocket upgrade, answered as an HTTP 429 before any upgrade.
  const live = (token: string): Promise<{ ws?: WebSocket; refusal?: Refusal }> =>
    new Promise((resolve) => {
      const ws = new WebSocket(`${rec.url.replace(/^http/, 'ws')}/websocket/gate`, { headers: { authorization: `Bearer ${token}` } });
      ws.on('open', () => resolve({ ws }));
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          const body = JSON.parse(text) as { error?: { code?: string; details?: { scope?: unknown } } };
          resolve({ refusal: { status: res.statusCode ?? 0, code: body.error?.code, scope: body.error?.details?.scope } });
        });
      });
      ws.on('error', () => undefined);
    });
  const viewers: WebSocket[] = [];
  t.after(() => viewers.forEach((ws) => ws.terminate()));
  for (const token of [TOKENS.a, TOKENS.a]) {
    const r = await live(token);
    assert.ok(r.ws !== undefined, JSON.stringify(r.refusal));
    viewers.push(r.ws);
  }
  assert.deepEqual((await live(TOKENS.a)).refusal, { status: 429, code: 'too_many_streams', scope: 'token' });
  const third = await live(TOKENS.b);
  assert.ok(third.ws !== undefined);
  viewers.push(third.ws);
  assert.deepEqual((await live(TOKENS.b)).refusal, { status: 429, code: 'too_many_streams', scope: 'node' });
  assert.equal(await gauge('live'), 3);
  viewers[0]?.close();
  await waitUntil(async () => (await gauge('live')) === 2, 10_000, 'a viewer that left is no longer counted');
  const again = await live(TOKENS.a);
  assert.ok(again.ws !== undefined, 'its place is free again');
  viewers.push(again.ws);
});
