// The playback server against real recordings (GStreamer camera, native ingest): segment files with ranges, a file read
// while it grows, play across segments and a gap (ffprobe), play into the open segment, errors, a client that leaves.
import assert from 'node:assert/strict';
import { readFile, readlink, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe, topLevelBoxes } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { getJson, postJson } from './helpers.js';
import { fetchBytes, largestStep, videoPackets, wholeBoxes } from './playback-helpers.js';

const TOKENS = { viewer: 'playback-viewer-1', operator: 'playback-operator-1' };
const FPS = 25;

interface Segment {
  timestamp: string;
  sequence: number;
  filename: string;
  size: number;
  mtime: number;
  is_open: boolean;
  url: string;
}

const startOf = (s: Segment): number => Date.parse(s.timestamp) / 1000;

test('playback server: segment files, a growing file, play across segments and a gap, into the open segment, errors', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: FPS, gop: FPS, bitrateKbps: 300 });
  t.after(() => camera.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      stall_seconds: 3,
      record: { segment_seconds: 2 },
      auth: { tokens: [{ name: 'wall', role: 'viewer', sha256: sha256(TOKENS.viewer) }, { name: 'ops', role: 'operator', sha256: sha256(TOKENS.operator) }] },
      cameras: [
        { id: 'yard', source: camera.url },
        { id: 'dock', source: camera.url, record: { format: 'mp4' } },
      ],
    },
  });
  t.after(() => rec.stop());
  const listing = async (id = 'yard'): Promise<Segment[]> => {
    const now = Math.floor(Date.now() / 1000);
    const r = await getJson(`${rec.url}/api/archive/${id}/segments?from=${now - 600}&to=${now + 60}`, TOKENS.viewer);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { archive: Segment[] }).archive;
  };
  const closedCount = async (): Promise<number> => (await listing()).filter((s) => !s.is_open).length;

  // Three closed segments, then a deliberate gap (the camera stopped for 4 s), then two more and the open one.
  await waitUntil(async () => (await closedCount()) >= 3, 40_000, 'three closed segments');
  assert.equal((await postJson(`${rec.url}/cameras/stop`, { id: 'yard' }, TOKENS.operator)).status, 200);
  await new Promise((r) => setTimeout(r, 4000));
  assert.equal((await postJson(`${rec.url}/cameras/start`, { id: 'yard' }, TOKENS.operator)).status, 200);
  const before = await closedCount();
  await waitUntil(async () => (await closedCount()) >= before + 2, 40_000, 'two closed segments after the gap');
  const segments = await listing();
  const gapAt = segments.findIndex((s, i) => i > 0 && startOf(s) - (segments[i - 1] as Segment).mtime > 2);
  assert.ok(gapAt >= 3, `the listing shows the gap after three segments: ${JSON.stringify(segments.map((s) => [s.timestamp, s.mtime]))}`);
  const [b, c, d] = [segments[gapAt - 2], segments[gapAt - 1], segments[gapAt]] as [Segment, Segment, Segment];
  const listedGap = startOf(d) - c.mtime;

  await t.test('a segment file: whole, byte ranges, ETag and 304, CORS, errors', async () => {
    const onDisk = await readFile(join(rec.recordPath, b.filename));
    assert.equal(b.url, `/api/archive/yard/segments/${b.filename.split('/').pop()}`);
    const whole = await fetchBytes(`${rec.url}${b.url}`, TOKENS.viewer);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('content-type'), 'video/mp4');
    assert.equal(whole.headers.get('accept-ranges'), 'bytes');
    assert.equal(whole.headers.get('access-control-allow-origin'), '*');
    assert.ok(whole.body.equals(onDisk), 'the bytes on disk');
    const part = await fetchBytes(`${rec.url}${b.url}`, TOKENS.viewer, { range: 'bytes=100-1099' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 100-1099/${onDisk.length}`);
    assert.ok(part.body.equals(onDisk.subarray(100, 1100)));
    const tail = await fetchBytes(`${rec.url}${b.url}`, TOKENS.viewer, { range: 'bytes=-500' });
    assert.ok(tail.body.equals(onDisk.subarray(onDisk.length - 500)));
    const outside = await fetchBytes(`${rec.url}${b.url}`, TOKENS.viewer, { range: `bytes=${onDisk.length}-` });
    assert.equal(outside.status, 416);
    assert.equal(outside.headers.get('content-range'), `bytes */${onDisk.length}`);
    const etag = whole.headers.get('etag') as string;
    assert.equal((await fetchBytes(`${rec.url}${b.url}`, TOKENS.viewer, { 'if-none-match': etag })).status, 304);
    // A <video src> carries a media ticket of the camera (minted with the token in the header), never the token.
    assert.equal((await fetchBytes(`${rec.url}${b.url}?access_token=${TOKENS.viewer}`, undefined)).status, 401);
    const minted = await postJson(`${rec.url}/api/tickets`, { purpose: 'media', camera_id: 'yard' }, TOKENS.viewer);
    assert.equal(minted.status, 200);
    const ticket = encodeURIComponent((minted.body as { ticket: string }).ticket);
    assert.equal((await fetchBytes(`${rec.url}${b.url}?ticket=${ticket}`, undefined)).status, 200);
    assert.equal((await fetchBytes(`${rec.url}${d.url.replace('/yard/', '/dock/').replace('yard_', 'dock_')}?ticket=${ticket}`, undefined)).status, 401, 'not for another camera');
    assert.equal((await fetchBytes(`${rec.url}${b.url}`, undefined)).status, 401);
    const error = async (path: string): Promise<[number, string]> => {
      const r = await getJson(`${rec.url}${path}`, TOKENS.viewer);
      return [r.status, (r.body as { error?: { code: string } }).error?.code ?? ''];
    };
    assert.deepEqual(await error('/api/archive/yard/segments/..%2F..%2Fconfig.yaml'), [400, 'invalid_filename']);
    assert.deepEqual(await error(`/api/archive/yard/segments/${b.filename.split('/').pop()}.part`), [400, 'invalid_filename']);
    assert.deepEqual(await error('/api/archive/yard/segments/config.yaml'), [400, 'invalid_filename']);
    assert.deepEqual(await error(`/api/archive/yard/segments/${d.filename.split('/').pop()?.replace('yard_', 'dock_')}`), [400, 'invalid_filename']);
    assert.deepEqual(await error('/api/archive/yard/segments/yard_20200101T000000Z_999999.mp4'), [404, 'segment_not_found']);
    assert.deepEqual(await error('/api/archive/nobody/segments/nobody_20200101T000000Z_1.mp4'), [404, 'camera_not_found']);
  });

  await t.test('the open segment read while it grows: every answer is whole boxes, up to the last complete fragment', async () => {
    const sizes: number[] = [];
    const tags = new Set<string>();
    for (let i = 0; i < 10; i++) {
      const current = (await getJson(`${rec.url}/api/archive/yard/current`, TOKENS.viewer)).body as { filename: string };
      const url = `${rec.url}/api/archive/yard/segments/${current.filename.split('/').pop()}`;
      const r = await fetchBytes(url, TOKENS.viewer, i % 2 === 0 ? {} : { range: 'bytes=0-' });
      if (r.status === 404) continue; // rolled over and closed between the two requests
      assert.ok(r.status === 200 || r.status === 206, `status ${r.status}`);
      const types = wholeBoxes(r.body);
      assert.deepEqual(types.slice(0, 2), ['ftyp', 'moov']);
      assert.ok(types.slice(2).every((type, k) => type === (k % 2 === 0 ? 'moof' : 'mdat')), `moof/mdat pairs: ${types.join(' ')}`);
      assert.equal(types.length % 2, 0, 'the last fragment is whole (its mdat came with its moof)');
      sizes.push(r.body.length);
      tags.add(r.headers.get('etag') as string);
      await new Promise((res) => setTimeout(res, 250));
    }
    assert.ok(sizes.length >= 5, `the open file was read (${sizes.length} times)`);
    assert.ok(tags.size >= 3, `its version changes as it grows (${tags.size} ETags for sizes ${sizes.join(', ')})`);
  });

  await t.test('play across three segments and a gap: decodes, continuous across the boundary, the gap kept, the recorded time', async () => {
    const from = startOf(b) + 1;
    const to = startOf(d) + 1;
    const r = await fetchBytes(`${rec.url}/api/archive/yard/play?from=${from}&to=${to}`, TOKENS.viewer);
    assert.equal(r.status, 200, r.body.toString().slice(0, 300));
    assert.equal(r.headers.get('content-type'), 'video/mp4');
    const origin = Number(r.headers.get('vigil-start'));
    assert.ok(origin <= from + 0.5 && origin >= from - 2, `the stream starts at the keyframe at or before from (${origin} for ${from})`);
    const path = join(dir, 'across.mp4');
    await writeFile(path, r.body);
    const p = await probe(path);
    assert.equal(p.errors, '', 'the stream decodes cleanly');
    const packets = await videoPackets(path);
    assert.ok(packets[0]?.keyframe, 'it starts with a keyframe');
    for (let i = 1; i < packets.length; i++) assert.ok((packets[i] as { dts: number }).dts > (packets[i - 1] as { dts: number }).dts, `decode times strictly increase (packet ${i})`);
    assert.equal(new Set(packets.map((x) => x.pts)).size, packets.length, 'no two pictures at one time');
    // The one step longer than a frame is the gap, as long as the listing says (names are whole seconds).
    const gap = largestStep(packets);
    assert.ok(Math.abs(gap.seconds - listedGap) < 1.2, `the gap is kept: ${gap.seconds.toFixed(2)} s in the stream, ${listedGap} s in the listing`);
    const pts = packets.map((x) => x.pts).sort((x, y) => x - y);
    const steps = pts.slice(1).map((v, i) => v - (pts[i] as number));
    assert.equal(steps.filter((s) => s > 2 / FPS).length, 1, 'continuous everywhere but the gap (no jump where B ends and C begins)');
    // Every picture of the window is there once: the pictures before the gap are B's from a keyframe on plus all of C's.
    const beforeGap = packets.filter((x) => x.pts <= gap.at).length;
    const bPackets = await videoPackets(join(rec.recordPath, b.filename));
    const cPackets = await videoPackets(join(rec.recordPath, c.filename));
    const fromKeyframes = bPackets.flatMap((x, i) => (x.keyframe ? [bPackets.length - i + cPackets.length] : []));
    assert.ok(fromKeyframes.includes(beforeGap), `${beforeGap} pictures before the gap: one of ${fromKeyframes.join(', ')} (B from a keyframe, then C)`);
    // Recorded time in the window: from that keyframe to C's end, and D's first second.
    const recorded = beforeGap / FPS + (to - startOf(d));
    assert.ok(Math.abs(packets.length / FPS - recorded) < 1.1, `${packets.length / FPS} s of pictures for ${recorded.toFixed(2)} s recorded in the window`);
    assert.ok(Math.abs(p.playSeconds - (recorded + gap.seconds)) < 1.1, `the stream lasts the recorded time plus the gap (${p.playSeconds})`);
  });

  await t.test('play inside the open segment: follows what is written until to, then ends', async () => {
    const now = Math.floor(Date.now() / 1000);
    const started = Date.now();
    const r = await fetchBytes(`${rec.url}/api/archive/yard/play?from=${now - 1}&to=${now + 2}`, TOKENS.viewer);
    const elapsed = (Date.now() - started) / 1000;
    assert.equal(r.status, 200);
    assert.ok(elapsed > 1 && elapsed < 15, `the answer ends once to has passed (${elapsed} s)`);
    const path = join(dir, 'open.mp4');
    await writeFile(path, r.body);
    const p = await probe(path);
    assert.equal(p.errors, '');
    const origin = Number(r.headers.get('vigil-start'));
    const packets = await videoPackets(path);
    const lastWall = origin + Math.max(...packets.map((x) => x.pts));
    assert.ok(origin <= now - 1 + 0.05, `starts at the keyframe at or before from (${origin - now})`);
    assert.ok(Math.abs(lastWall - (now + 2)) < 1, `reaches to: the last picture is ${(lastWall - now - 2).toFixed(2)} s from it`);
    // A window in the past that ends inside the open segment ends at once.
    const quick = Date.now();
    const past = await fetchBytes(`${rec.url}/api/archive/yard/play?from=${now - 1}&to=${now}`, TOKENS.viewer);
    assert.equal(past.status, 200);
    assert.ok(Date.now() - quick < 5000);
  });

  await t.test('play errors: the window rules of export, unknown camera, nothing recorded, progressive segments (409)', async () => {
    const code = async (query: string, id = 'yard'): Promise<[number, string]> => {
      const r = await getJson(`${rec.url}/api/archive/${id}/play${query}`, TOKENS.viewer);
      return [r.status, (r.body as { error?: { code: string } }).error?.code ?? ''];
    };
    const now = Math.floor(Date.now() / 1000);
    assert.deepEqual(await code(''), [400, 'invalid_parameter']);
    assert.deepEqual(await code(`?from=${now}&to=soon`), [400, 'invalid_parameter']);
    assert.deepEqual(await code(`?from=${now}&to=${now}`), [400, 'invalid_window']);
    assert.deepEqual(await code(`?from=${now - 5 * 3600}&to=${now}`), [413, 'window_too_long']);
    assert.deepEqual(await code(`?from=${now - 60}&to=${now}`, 'nobody'), [404, 'camera_not_found']);
    assert.deepEqual(await code(`?from=1000000000&to=1000000060`), [404, 'no_recordings']);
    assert.equal((await fetchBytes(`${rec.url}/api/archive/yard/play?from=${now - 5}&to=${now}`, undefined)).status, 401);
    // The mp4-format camera: its closed segments are progressive; they play whole from their url, not cut by play.
    await waitUntil(async () => (await listing('dock')).some((s) => !s.is_open), 20_000, 'a closed mp4-format segment');
    const dock = (await listing('dock')).find((s) => !s.is_open) as Segment;
    assert.deepEqual(await code(`?from=${startOf(dock)}&to=${startOf(dock) + 1}`, 'dock'), [409, 'not_fragmented']);
    const file = await fetchBytes(`${rec.url}${dock.url}`, TOKENS.viewer);
    assert.equal(file.status, 200);
    const path = join(dir, 'dock.mp4');
    await writeFile(path, file.body);
    assert.ok((await topLevelBoxes(path)).indexOf('moov') > (await topLevelBoxes(path)).indexOf('mdat'), 'a progressive file');
  });

  await t.test('a client that goes away mid-stream: the recorder stops reading and closes the file', async () => {
    // Files of the camera the recorder has open for reading (the writer's are write-only).
    const readerFds = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const fd of await readdir(`/proc/${rec.pid}/fd`).catch(() => [] as string[])) {
        const target = await readlink(`/proc/${rec.pid}/fd/${fd}`).catch(() => '');
        const info = await readFile(`/proc/${rec.pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
        const flags = parseInt(/^flags:\s*([0-7]+)/m.exec(info)?.[1] ?? '1', 8);
        if (target.startsWith(join(rec.recordPath, 'yard')) && (flags & 3) === 0) out.push(target);
      }
      return out;
    };
    const controller = new AbortController();
    const res = await fetch(`${rec.url}/api/archive/yard/play?from=${startOf(b)}&to=${Math.floor(Date.now() / 1000) + 60}`, { headers: { authorization: `Bearer ${TOKENS.viewer}` }, signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first bytes; then the client reads no more (the recorder waits for it: backpressure)
    await waitUntil(async () => (await readerFds()).length > 0, 5000, 'the recorder reading a segment for the paused client');
    controller.abort();
    await waitUntil(async () => (await readerFds()).length === 0, 5000, 'the file closed once the client went away');
  });
});
