// kill -9 in the middle of a segment, then restart: every file plays, the sequence keeps rising, no ffmpeg is left.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe, topLevelBoxes } from '@vigil/testing/media-probe';
import { processesMatching, waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { fileSize, getJson, segmentFiles, sequenceOf } from './helpers.js';

for (const format of ['fmp4', 'mp4'] as const) {
  test(`kill -9 while recording (${format}): the next start repairs the open file and goes on numbering`, { timeout: 90_000 }, async (t) => {
    const dir = await tempDir(t);
    const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
    t.after(() => camera.stop());
    const config = { auth: { disabled: true }, stall_seconds: 4, record: { format, segment_seconds: 4 }, cameras: [{ id: 'yard', source: camera.url }] };
    const first = await startRecorderProcess({ dir, config });
    t.after(() => first.stop());
    await waitUntil(async () => (await segmentFiles(first.recordPath)).length >= 2, 30_000, 'two closed segments');
    // Wait until the open file is a couple of seconds into its segment, then kill hard.
    const openSuffix = format === 'mp4' ? '.mp4.part' : '.mp4';
    await waitUntil(async () => {
      const all = await segmentFiles(first.recordPath, openSuffix);
      const newest = all.at(-1);
      return newest !== undefined && (await fileSize(join(first.recordPath, newest))) > 60_000;
    }, 20_000, 'an open segment with data');
    first.signal('SIGKILL');
    await first.waitExit();
    const before = await segmentFiles(first.recordPath, openSuffix);
    const maxSeqBefore = Math.max(...before.map(sequenceOf));
    if (format === 'mp4') assert.ok((await segmentFiles(first.recordPath, '.part')).length >= 1, 'a .part was left behind');
    // The orphaned ffmpeg loses its pipe and dies.
    await waitUntil(async () => (await processesMatching(`127.0.0.1:${camera.port}`)).length === 0, 10_000, 'no leftover ffmpeg after kill -9');

    const second = await startRecorderProcess({ dir, config });
    t.after(() => second.stop());
    await second.waitForLog((l) => l.msg === 'segment left open by the previous run repaired');
    await waitUntil(async () => (await segmentFiles(second.recordPath)).some((f) => sequenceOf(f) > maxSeqBefore + 1), 30_000, 'a new closed segment');
    assert.equal((await getJson(`${second.url}/api/health/live`)).status, 200);
    await second.stop();
    assert.deepEqual(await segmentFiles(second.recordPath, '.part'), [], 'no .part is left after a clean stop');
    assert.deepEqual(await readdir(join(second.workDir, 'open-segments')), [], 'the open-segment journal is empty');

    const files = await segmentFiles(second.recordPath);
    const seqs = files.map(sequenceOf);
    assert.equal(new Set(seqs).size, seqs.length, 'no sequence is reused');
    assert.ok(Math.max(...seqs) > maxSeqBefore, 'numbering continued above the crashed run');
    for (const f of files) {
      const p = await probe(join(second.recordPath, f));
      assert.equal(p.errors, '', `${f} plays`);
      assert.ok(p.playSeconds > 0.1, `${f} has video`);
      if (format === 'mp4') {
        const boxes = await topLevelBoxes(join(second.recordPath, f));
        assert.ok(boxes.indexOf('moov') > boxes.indexOf('mdat'), `${f} is progressive with moov at the end (${boxes.join(',')})`);
      }
    }
  });
}
