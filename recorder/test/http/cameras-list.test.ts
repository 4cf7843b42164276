// GET /api/cameras: viewer role, every known camera with state, and codec/size once the camera streams.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { startLiveApp, VIEWER_TOKEN } from './live-fixtures.js';

test('GET /api/cameras lists cameras with state, codec, size and ptz; it needs a viewer token', async (t) => {
  const live = await startLiveApp(t);
  const streaming = new StreamHub('b-door');
  streaming.publishInit({
    data: Buffer.from('init'),
    tracks: [
      { trackId: 1, handler: 'vide', timescale: 90000, codec: 'avc1.42C01E', width: 640, height: 360, defaultSampleDuration: 0, defaultSampleFlags: 0 },
      { trackId: 2, handler: 'soun', timescale: 48000, codec: 'mp4a.40.2', defaultSampleDuration: 0, defaultSampleFlags: 0 },
    ],
    video: { trackId: 1, handler: 'vide', timescale: 90000, codec: 'avc1.42C01E', width: 640, height: 360, defaultSampleDuration: 0, defaultSampleFlags: 0 },
  });
  live.hubs.set('b-door', streaming);
  live.hubs.set('a-yard', new StreamHub('a-yard'));
  live.hubs.set('c-parked', undefined);

  assert.equal((await live.app.inject({ url: '/api/cameras' })).statusCode, 401);
  const res = await live.app.inject({ url: '/api/cameras', headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.deepEqual(res.json(), [
    { id: 'a-yard', state: 'stalled', codec: null, width: null, height: null, ptz: false, ingest: 'native', ingest_fallback_reason: null, rtsp_transport: 'udp', rtsp_transport_reason: 'automatic: the camera refused TCP (461 Unsupported transport)', node: 'test-node', url: null },
    { id: 'b-door', state: 'recording', codec: 'avc1.42C01E,mp4a.40.2', width: 640, height: 360, ptz: false, ingest: 'native', ingest_fallback_reason: null, rtsp_transport: 'udp', rtsp_transport_reason: 'automatic: the camera refused TCP (461 Unsupported transport)', node: 'test-node', url: null },
    { id: 'c-parked', state: 'stopped', codec: null, width: null, height: null, ptz: false, ingest: null, ingest_fallback_reason: null, rtsp_transport: null, rtsp_transport_reason: null, node: 'test-node', url: null },
  ]);
});

test('in a cluster, cameras other nodes record are listed with their node and the URL this caller should use', async (t) => {
  const live = await startLiveApp(t);
  live.hubs.set('a-here', new StreamHub('a-here'));
  live.remote.set('b-there', { kind: 'remote', node: 'node-b', url: 'http://vigil-recorder-node-b.vigil.svc:9997/', publicUrl: 'https://node-b.vigil.example.com' });
  const inside = await live.app.inject({ url: '/api/cameras', headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
  assert.deepEqual(inside.json<Array<{ id: string; node: string; url: string | null }>>().map((c) => [c.id, c.node, c.url]), [
    ['a-here', 'test-node', null],
    ['b-there', 'node-b', 'http://vigil-recorder-node-b.vigil.svc:9997'],
  ]);
  const viaIngress = await live.app.inject({ url: '/api/cameras', headers: { authorization: `Bearer ${VIEWER_TOKEN}`, 'x-forwarded-host': 'vigil.example.com' } });
  assert.equal(viaIngress.json<Array<{ url: string | null }>>()[1]?.url, 'https://node-b.vigil.example.com');
});
