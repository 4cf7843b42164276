// Hostile cameras (huge Content-Length, endless headers, absurd frames, a foreign SSRC, garbage mid-stream) beside a good one: the recorder survives, says why, and keeps recording the others.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHostileRtspCamera, type HostileMode, type HostileRtspCamera } from '@vigil/testing/hostile-rtsp-camera';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { encodeLoopFile, startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess, type LogLine } from '../support/recorder-process.js';
import { currentFilename, fileSize, getJson, segmentFiles } from './helpers.js';

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

test('hostile cameras end their own sessions with a clear log line and reconnect; the recorder stays up, its memory bounded, the good camera records on', { timeout: 150_000 }, async (t) => {
  const dir = await tempDir(t);
  const loop = join(dir, 'loop.h264');
  await encodeLoopFile(loop, { width: 320, height: 180, fps: 25, gop: 25, bitrateKbps: 300, seconds: 4 });
  const modes: HostileMode[] = ['huge-content-length', 'endless-headers', 'absurd-frames', 'foreign-ssrc', 'garbage-after'];
  const hostile = new Map<HostileMode, HostileRtspCamera>();
  for (const mode of modes) hostile.set(mode, await startHostileRtspCamera({ mode, file: loop, validSeconds: 4 }));
  t.after(() => Promise.all([...hostile.values()].map((c) => c.stop())));
  const good = await startRtspCamera({ width: 320, height: 180, fps: 25, gop: 25 });
  t.after(() => good.stop());
  const rec = await startRecorderProcess({
    dir,
    config: {
      auth: { disabled: true },
      stall_seconds: 4,
      record: { segment_seconds: 60 },
      cameras: [{ id: 'good', source: good.url }, ...modes.map((mode) => ({ id: mode, source: hostile.get(mode)?.url as string }))],
    },
  });
  t.after(() => rec.stop());
  const current = (id: string) => currentFilename(rec.url, id);
  await waitUntil(async () => (await current('good')) !== undefined, 30_000, 'the good camera records');
  const goodFile = await current('good');
  const baseline = await rssMiB(rec.pid);
  const rss: number[] = [];
  const why = (id: string, pattern: RegExp) => (l: LogLine): boolean => l['camera'] === id && pattern.test(`${l.msg} ${String(l['err'] ?? '')} ${String(l['reason'] ?? '')}`);
  const expectations: Array<[HostileMode, RegExp]> = [
    ['huge-content-length', /an RTSP body larger than 65536 bytes/],
    ['endless-headers', /an RTSP header longer than 65536 bytes/],
    ['absurd-frames', /no whole picture for \d+ s although the camera sends RTP/],
    ['foreign-ssrc', /RTP from a second source/],
    ['garbage-after', /unexpected byte 0x[0-9a-f]{2} in the RTSP stream/],
  ];
  // Twenty seconds of this: every hostile session has ended (most more than once) and been tried again.
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    rss.push(await rssMiB(rec.pid));
    await new Promise((r) => setTimeout(r, 1_000));
  }
  for (const [mode, pattern] of expectations) {
    assert.ok(rec.logs().some(why(mode, pattern)), `${mode}: the log says why (${pattern})`);
  }
  for (const mode of ['huge-content-length', 'endless-headers', 'absurd-frames', 'garbage-after'] as const) {
    assert.ok((hostile.get(mode)?.connections ?? 0) >= 2, `${mode}: its session ended and the recorder reconnected (${hostile.get(mode)?.connections} connections)`);
  }
  // The camera that sends a stranger's packets beside its own is recorded all the same, and garbage-after between its fits.
  assert.notEqual(await current('foreign-ssrc'), undefined, 'the foreign SSRC is ignored; the camera records');
  const files = await segmentFiles(rec.recordPath);
  const garbageFiles = files.filter((f) => f.startsWith('garbage-after/'));
  assert.ok(garbageFiles.length >= 2, `garbage-after recorded its valid seconds each time (${garbageFiles.length} files)`);
  for (const f of [...garbageFiles.slice(0, -1), ...files.filter((f) => f.startsWith('foreign-ssrc/'))]) {
    assert.equal((await probe(join(rec.recordPath, f))).errors, '', `${f} decodes cleanly`);
  }
  // The good camera never noticed: the same file, still growing, no restart.
  assert.equal(await current('good'), goodFile, 'the good camera kept its one open file');
  const size = await fileSize(join(rec.recordPath, goodFile as string));
  await waitUntil(async () => (await fileSize(join(rec.recordPath, goodFile as string))) > size, 5_000, 'the good camera\'s file grows');
  assert.equal(rec.logs().filter((l) => l['camera'] === 'good' && /restarting/.test(l.msg)).length, 0, 'the good camera never restarted');
  const cameras = (await getJson(`${rec.url}/api/cameras`)).body as Array<{ id: string; ingest: string }>;
  assert.ok(cameras.every((c) => c.ingest === 'native'), 'no hostile camera was handed to ffmpeg');
  // Memory stays bounded: hostile input is refused at fixed limits, never buffered without end.
  const peak = Math.max(...rss);
  assert.ok(peak - baseline < 120, `RSS grew from ${baseline.toFixed(0)} to at most ${peak.toFixed(0)} MiB`);
  assert.ok(rec.logs().every((l) => l.level < 60), 'nothing fatal');
});
