// The transport choice: TCP first, the other one after a refusal, what worked remembered, a pin never moved, no loop when both fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RtspTransportChoice, type RtspTransport } from '../../src/ingest/rtsp-transport-choice.js';

test('automatic: TCP first; a refusal switches to UDP and says why; what worked is remembered once', () => {
  const kept: RtspTransport[] = [];
  const choice = new RtspTransportChoice({ pinned: undefined, remembered: undefined, remember: (t) => kept.push(t) });
  assert.deepEqual(choice.status, { transport: 'tcp', reason: 'automatic: TCP first' });
  assert.equal(choice.refused('tcp', '461 Unsupported transport'), true, 'UDP has not failed: try it at once');
  assert.deepEqual(choice.status, { transport: 'udp', reason: 'automatic: the camera refused TCP (461 Unsupported transport)' });
  choice.worked('udp');
  choice.worked('udp');
  assert.deepEqual(kept, ['udp']);
});

test('a remembered transport is tried first; when both fail since the last success, no immediate retry', () => {
  const choice = new RtspTransportChoice({ pinned: undefined, remembered: 'udp' });
  assert.deepEqual(choice.status, { transport: 'udp', reason: 'automatic: UDP worked with this camera before' });
  assert.equal(choice.refused('udp', 'no RTP'), true);
  assert.equal(choice.current, 'tcp');
  assert.equal(choice.refused('tcp', '400 Bad Request'), false, 'both refused: wait the backoff');
  assert.equal(choice.current, 'udp', 'and keep alternating');
  choice.worked('udp');
  assert.equal(choice.refused('udp', 'no RTP'), true, 'a success clears the failures');
});

test('media over the other transport seen before the refusal is reported (a server sending RTP before PLAY)', () => {
  const choice = new RtspTransportChoice({ pinned: undefined, remembered: undefined });
  choice.worked('udp');
  choice.refused('tcp', '400 Bad Request');
  assert.deepEqual(choice.status, { transport: 'udp', reason: 'automatic: the camera refused TCP (400 Bad Request)' });
});

test('a pinned transport never moves and is never written down', () => {
  const kept: RtspTransport[] = [];
  const choice = new RtspTransportChoice({ pinned: 'tcp', remembered: undefined, remember: (t) => kept.push(t) });
  assert.equal(choice.automatic, false);
  assert.equal(choice.refused('tcp', '461 Unsupported transport'), false);
  choice.worked('tcp');
  assert.deepEqual(choice.status, { transport: 'tcp', reason: 'set by rtsp_transport' });
  assert.deepEqual(kept, []);
});
