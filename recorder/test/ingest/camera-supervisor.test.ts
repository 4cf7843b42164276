// Stall detection and restart delays follow the injected clock: a camera goes silent when the clock says so, not the wall.
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { CameraSupervisor } from '../../src/ingest/camera-supervisor.js';
import { FfmpegRunner } from '../../src/ingest/ffmpeg-runner.js';
import type { IngestRunEnd, IngestRunner } from '../../src/ingest/ingest-run.js';
import { StreamHub } from '../../src/stream/stream-hub.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { waitUntil } from '@vigil/testing/processes';
import { encodeFragmented } from '../media/fixtures.js';
import { configCamera, ManualClock, testLogger } from '../support/fakes.js';

test('a camera that stops sending is declared silent only when the clock passes stall_seconds, then restarted after the backoff', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const media = await encodeFragmented(dir, 'one-second.mp4', { seconds: 1, video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25'] });
  // Stands in for ffmpeg: counts its starts, sends one second of fMP4, then stays silent until killed.
  const starts = join(dir, 'starts');
  const fakeFfmpeg = join(dir, 'fake-ffmpeg.sh');
  await writeFile(fakeFfmpeg, `#!/bin/sh\necho x >> '${starts}'\ncat '${media}'\nexec sleep 600\n`);
  await chmod(fakeFfmpeg, 0o755);
  const startCount = async (): Promise<number> => (await readFile(starts, 'utf8').catch(() => '')).split('\n').filter((l) => l !== '').length;

  const clock = new ManualClock();
  const hub = new StreamHub('quiet');
  const camera = configCamera({ id: 'quiet', source: 'rtsp://127.0.0.1:9/quiet', ingest: 'ffmpeg' });
  const log = testLogger().log;
  const supervisor = new CameraSupervisor({ camera, hub, log, runner: () => new FfmpegRunner({ camera, log, ffmpegPath: fakeFfmpeg }), stallSeconds: 5, clock });
  supervisor.start();
  t.after(() => supervisor.stop());
  await waitUntil(() => supervisor.state === 'streaming', 10_000, 'the init segment arrived');

  // Real time passes, the manual clock does not: no stall.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(supervisor.counters.stalls, 0);
  assert.equal(supervisor.state, 'streaming');

  clock.advance(4000);
  assert.equal(supervisor.counters.stalls, 0, 'four seconds of silence is not five');
  clock.advance(2100); // the watchdog looks once a second
  assert.equal(supervisor.counters.stalls, 1, 'silent for more than stall_seconds');
  await waitUntil(() => supervisor.state === 'stalled', 10_000, 'the old ffmpeg is gone and a restart is pending');
  assert.equal(await startCount(), 1, 'no restart before the backoff delay');

  await clock.advanceAsync(1000, 100);
  await waitUntil(async () => (await startCount()) === 2, 10_000, 'restarted after the 1 s backoff');
  assert.equal(supervisor.counters.restarts, 1);
});

test('pictures a run holds back reach the stream before it ends, when the camera goes silent and when the recorder stops', async (t) => {
  const { fakeFragment, fakeInit } = await import('../stream/fragments.js');
  const clock = new ManualClock();
  const hub = new StreamHub('held');
  const seen: string[] = [];
  hub.subscribe({ kind: 'recording', maxQueuedBytes: 1e9, handle: (item) => void seen.push(item.type === 'fragment' ? `f${item.fragment.sequenceNumber}` : item.type) });
  let next = 0;
  const runner: IngestRunner = {
    path: 'native',
    start(handlers) {
      let over!: (end: IngestRunEnd) => void;
      const ended = new Promise<IngestRunEnd>((resolve) => (over = resolve));
      handlers.onActivity();
      handlers.onInit(fakeInit());
      handlers.onFragment(fakeFragment(next++, true));
      let held = true;
      return {
        pid: undefined,
        ended,
        stop: async () => over({ detail: {} }),
        sendHeld: () => {
          if (held) handlers.onFragment(fakeFragment(next++, false));
          held = false;
        },
      };
    },
  };
  const camera = configCamera({ id: 'held', source: 'rtsp://127.0.0.1:9/held' });
  const supervisor = new CameraSupervisor({ camera, hub, log: testLogger().log, runner: () => runner, stallSeconds: 5, clock });
  supervisor.start();
  t.after(() => supervisor.stop());
  await waitUntil(() => seen.length >= 2, 5_000, 'the first run streams');
  clock.advance(6100);
  await waitUntil(() => seen.includes('end'), 5_000, 'the silent camera ends the stream');
  assert.deepEqual(seen, ['init', 'f0', 'f1', 'end'], 'the held picture went out before the end');
  await clock.advanceAsync(1000, 100);
  await waitUntil(() => seen.length >= 6, 5_000, 'restarted');
  await supervisor.stop();
  assert.deepEqual(seen.slice(4), ['init', 'f2', 'f3', 'end'], 'and again at stop');
});

test('a fallback to ffmpeg lasts one ffmpeg run: the next session tries native again, and a cause that stays falls back again quietly', async (t) => {
  const clock = new ManualClock();
  const hub = new StreamHub('fickle');
  const paths: string[] = [];
  // Native refuses the camera twice (the same cause), then reads it; each ffmpeg run ends at once (the camera dropped).
  let nativeRuns = 0;
  const runner = (path: 'native' | 'ffmpeg'): IngestRunner => ({
    path,
    start() {
      paths.push(path);
      const refused = path === 'native' && ++nativeRuns <= 2;
      let over!: (end: IngestRunEnd) => void;
      const ended = new Promise<IngestRunEnd>((resolve) => (over = resolve));
      // A native run the camera accepts goes on until stopped.
      if (refused) over({ detail: {}, unsupported: 'video codec JPEG' });
      else if (path === 'ffmpeg') over({ detail: {} });
      return { pid: undefined, ended, stop: async () => over({ detail: {} }) };
    },
  });
  const camera = configCamera({ id: 'fickle', source: 'rtsp://127.0.0.1:9/fickle' });
  const logger = testLogger();
  const supervisor = new CameraSupervisor({ camera, hub, log: logger.log, runner, stallSeconds: 5, clock });
  supervisor.start();
  t.after(() => supervisor.stop());
  await waitUntil(() => paths.length >= 2, 5_000, 'the first fallback');
  await clock.advanceAsync(1000, 100);
  await waitUntil(() => paths.length >= 4, 5_000, 'native again after the ffmpeg run, then ffmpeg again');
  await clock.advanceAsync(2000, 100);
  await waitUntil(() => paths.length >= 5, 5_000, 'native again');
  assert.deepEqual(paths, ['native', 'ffmpeg', 'native', 'ffmpeg', 'native']);
  assert.deepEqual(supervisor.ingest, { path: 'native', fallbackReason: undefined }, 'read natively once the cause passed');
  assert.equal(supervisor.counters.fallbacks, 2);
  const warnings = logger.text().split('\n').filter((l) => l.includes('falling back to ffmpeg'));
  assert.equal(warnings.length, 1, 'the same cause is warned about once');
});
