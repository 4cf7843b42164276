// The live WebSocket against real hubs on a real port: upgrade refusals, message order, GOP replay, close codes, slow viewers.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { LIVE_CLOSE } from '../../src/http/live-viewer.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { fakeInit, fragmentNumber, numberedFragment, startLiveApp, tryUpgrade, VIEWER_TOKEN } from './live-fixtures.js';

interface Viewer {
  ws: WebSocket;
  messages: Buffer[];
  closed: Promise<{ code: number; reason: string }>;
}

function viewer(url: string, opts: ConstructorParameters<typeof WebSocket>[2] = {}): Viewer {
  const ws = new WebSocket(url, opts);
  const messages: Buffer[] = [];
  ws.on('message', (data: Buffer) => messages.push(data));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('error', () => undefined);
  return { ws, messages, closed };
}

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A ticket minted by the app (POST /api/tickets with the long-lived token in the header). */
async function mintTicket(url: string, body: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/api/tickets`, { method: 'POST', headers: { authorization: `Bearer ${VIEWER_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return ((await res.json()) as { ticket: string }).ticket;
}

test('the upgrade is refused with HTTP answers: unknown path or camera 404, no or bad token 401', async (t) => {
  const live = await startLiveApp(t);
  live.hubs.set('door', new StreamHub('door'));
  const auth = { authorization: `Bearer ${VIEWER_TOKEN}` };

  const unknown = await tryUpgrade(`${live.url}/websocket/nope`, auth);
  assert.equal(unknown.status, 404);
  assert.equal(JSON.parse(unknown.body).error.code, 'camera_not_found');
  assert.equal((await tryUpgrade(`${live.url}/websocket/..%2Fetc`, auth)).status, 404);
  assert.equal((await tryUpgrade(`${live.url}/elsewhere`, auth)).status, 404);

  const anonymous = await tryUpgrade(`${live.url}/websocket/door`);
  assert.equal(anonymous.status, 401);
  assert.equal(JSON.parse(anonymous.body).error.code, 'unauthorized');
  assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
  assert.equal((await tryUpgrade(`${live.url}/websocket/door?ticket=wrong`)).status, 401);
  // An unauthenticated caller cannot probe which cameras exist.
  assert.equal((await tryUpgrade(`${live.url}/websocket/nope`)).status, 401);

  assert.equal((await tryUpgrade(`${live.url}/websocket/door`, auth)).status, 101);
  // The long-lived token is never read from a URL; a ticket for this camera's live view is.
  assert.equal((await tryUpgrade(`${live.url}/websocket/door?access_token=${VIEWER_TOKEN}`)).status, 401);
  live.hubs.set('window', new StreamHub('window'));
  const ticket = await mintTicket(live.url, { purpose: 'live', camera_id: 'door' });
  assert.equal((await tryUpgrade(`${live.url}/websocket/door?ticket=${encodeURIComponent(ticket)}`)).status, 101);
  assert.equal((await tryUpgrade(`${live.url}/websocket/window?ticket=${encodeURIComponent(ticket)}`)).status, 401, 'another camera');
  const media = await mintTicket(live.url, { purpose: 'media', camera_id: 'door' });
  assert.equal((await tryUpgrade(`${live.url}/websocket/door?ticket=${encodeURIComponent(media)}`)).status, 401, 'another purpose');
  const [v, payload, mac] = ticket.split('.') as [string, string, string];
  const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), s: 'live:window' })).toString('base64url');
  assert.equal((await tryUpgrade(`${live.url}/websocket/window?ticket=${encodeURIComponent([v, widened, mac].join('.'))}`)).status, 401, 'an altered scope');
});

test('init first, then live fragments; a late joiner starts with the GOP cache at its keyframe', async (t) => {
  const live = await startLiveApp(t, { authDisabled: true });
  const hub = new StreamHub('door');
  live.hubs.set('door', hub);
  hub.publishInit(fakeInit());
  const early = viewer(`${live.wsUrl}/websocket/door`);
  await once(early.ws, 'open');
  for (let n = 0; n < 13; n++) hub.publishFragment(numberedFragment(n, n % 5 === 0));
  const late = viewer(`${live.wsUrl}/websocket/door`);
  await once(late.ws, 'open');
  for (let n = 13; n < 16; n++) hub.publishFragment(numberedFragment(n, n % 5 === 0));
  await until(() => early.messages.length === 17 && late.messages.length === 7, 'all messages');

  assert.equal(early.messages[0]?.toString(), 'ftyp-moov-init');
  assert.deepEqual(early.messages.slice(1).map((m) => fragmentNumber(m).n), [...Array(16).keys()]);
  assert.equal(late.messages[0]?.toString(), 'ftyp-moov-init');
  const lateFragments = late.messages.slice(1).map(fragmentNumber);
  assert.deepEqual(lateFragments.map((f) => f.n), [10, 11, 12, 13, 14, 15]);
  assert.equal(lateFragments[0]?.keyframe, true, 'the first fragment a late joiner gets is a keyframe');
  early.ws.close();
  late.ws.close();
});

test('a viewer waits for a camera that is not streaming yet, and is closed with 4408 when nothing comes', async (t) => {
  const live = await startLiveApp(t, { authDisabled: true, stallSeconds: 0.6 });
  const hub = new StreamHub('door');
  live.hubs.set('door', hub);
  const patient = viewer(`${live.wsUrl}/websocket/door`);
  await once(patient.ws, 'open');
  await new Promise((r) => setTimeout(r, 200));
  hub.publishInit(fakeInit());
  hub.publishFragment(numberedFragment(0, true));
  await until(() => patient.messages.length === 2, 'init and fragment after waiting');

  live.hubs.set('idle', new StreamHub('idle'));
  const started = Date.now();
  const waiting = viewer(`${live.wsUrl}/websocket/idle`);
  const closed = await waiting.closed;
  assert.equal(closed.code, LIVE_CLOSE.noStreamInTime);
  assert.match(closed.reason, /no stream/);
  assert.ok(Date.now() - started >= 500, 'closed only after stall_seconds');
  assert.equal(patient.ws.readyState, WebSocket.OPEN, 'the streaming viewer was not affected');
  patient.ws.close();
});

test('an ended stream closes viewers with 4410 and the reason; a stopped camera closes at once with 4410', async (t) => {
  const live = await startLiveApp(t, { authDisabled: true });
  const hub = new StreamHub('door');
  live.hubs.set('door', hub);
  hub.publishInit(fakeInit());
  const v = viewer(`${live.wsUrl}/websocket/door`);
  await once(v.ws, 'open');
  hub.end('stalled');
  assert.deepEqual(await v.closed, { code: LIVE_CLOSE.streamEnded, reason: 'stream ended: stalled' });

  live.hubs.set('parked', undefined);
  const stopped = viewer(`${live.wsUrl}/websocket/parked`);
  assert.deepEqual(await stopped.closed, { code: LIVE_CLOSE.streamEnded, reason: 'camera is stopped' });
});

test('a peer that answers no ping is dropped', async (t) => {
  const live = await startLiveApp(t, { authDisabled: true, limits: { pingIntervalMs: 150 } });
  live.hubs.set('door', new StreamHub('door'));
  // autoPong off: this client reads but never answers a ping, like a peer whose network vanished.
  const mute = viewer(`${live.wsUrl}/websocket/door`, { autoPong: false });
  const closed = await mute.closed;
  assert.equal(closed.code, 1006, 'terminated without a close handshake');
});

test('a viewer that never reads is skipped to a keyframe; other viewers and the recording lose nothing', { timeout: 60_000 }, async (t) => {
  const live = await startLiveApp(t, { authDisabled: true, limits: { maxQueuedBytes: 2 * 1024 * 1024, maxBufferedBytes: 256 * 1024 } });
  const hub = new StreamHub('door');
  live.hubs.set('door', hub);
  let recorded = 0;
  const recording = hub.subscribe({ kind: 'recording', maxQueuedBytes: 64 * 1024 * 1024, handle: () => void recorded++ });
  t.after(() => recording.unsubscribe());
  hub.publishInit(fakeInit());

  let stuckSocket: Socket | undefined;
  const stuck = viewer(`${live.wsUrl}/websocket/door`, {
    createConnection: (options: { host?: string; port?: number }) => (stuckSocket = connect({ host: options.host ?? '127.0.0.1', port: Number(options.port) })),
  } as ConstructorParameters<typeof WebSocket>[2]);
  const reader = viewer(`${live.wsUrl}/websocket/door`);
  await Promise.all([once(stuck.ws, 'open'), once(reader.ws, 'open')]);
  assert.ok(stuckSocket !== undefined);
  stuckSocket.pause();

  // ~40 MB at 100 KB per fragment, paced so a reading viewer keeps up: far past the kernel buffers and both bounds.
  const total = 400;
  const started = Date.now();
  for (let n = 0; n < total; n++) {
    hub.publishFragment(numberedFragment(n, n % 10 === 0, 100 * 1024));
    await new Promise((r) => setTimeout(r, 2));
  }
  await until(() => reader.messages.length === total + 1, `the reading viewer got everything (has ${reader.messages.length})`, 30_000);
  const readerMs = Date.now() - started;
  await until(() => recorded === total + 1, 'the recording got everything');

  const counters = hub.counters;
  assert.equal(counters.dropped.recording, 0, 'the recording dropped nothing');
  assert.ok(counters.dropped.live > 0, 'the stuck viewer had fragments dropped');
  assert.deepEqual(reader.messages.slice(1).map((m) => fragmentNumber(m).n), [...Array(total).keys()], 'the reading viewer got every fragment in order');
  assert.ok(readerMs < 20_000, `the reading viewer was not held back (${readerMs} ms)`);

  // Once it reads again, the stuck viewer's stream jumps forward and resumes at a keyframe.
  stuckSocket.resume();
  hub.publishFragment(numberedFragment(total, true, 1000));
  await until(() => stuck.messages.some((m) => m.length > 4 && fragmentNumber(m).n === total), 'the stuck viewer catches up', 30_000);
  const got = stuck.messages.slice(1).map(fragmentNumber);
  const gap = got.findIndex((f, i) => i > 0 && f.n !== (got[i - 1]?.n ?? -1) + 1);
  assert.ok(gap > 0, 'there is a gap in what the stuck viewer received');
  assert.equal(got[gap]?.keyframe, true, 'after the gap it resumes at a keyframe');
  stuck.ws.close();
  reader.ws.close();
});

test('a viewer that joins before the camera sent its first keyframe starts at that keyframe', async (t) => {
  const live = await startLiveApp(t, { authDisabled: true });
  const hub = new StreamHub('door');
  live.hubs.set('door', hub);
  hub.publishInit(fakeInit());
  hub.publishFragment(numberedFragment(0, false));
  hub.publishFragment(numberedFragment(1, false));
  const v = viewer(`${live.wsUrl}/websocket/door`);
  await once(v.ws, 'open');
  hub.publishFragment(numberedFragment(2, false));
  hub.publishFragment(numberedFragment(3, true));
  hub.publishFragment(numberedFragment(4, false));
  await until(() => v.messages.length === 3, 'init and two fragments');
  assert.deepEqual(v.messages.slice(1).map((m) => fragmentNumber(m).n), [3, 4]);
  v.ws.close();
});
