// The concat list: per-file durations (where the next file's zero goes so its first picture follows this file's last),
// and paths ffmpeg finds whatever the recorder's working directory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '@vigil/testing/temp-dir';
import { joinDuration, writeConcatList, writePlainConcatList } from '../../src/jobs/export-plan.js';

const run = promisify(execFile);

test('the next file starts where this file\'s video ends, less its inpoint and the next file\'s audio lead', () => {
  // This file's pictures run 0.05–2.05 s of its time; the next file's first picture is 0.06 s after its zero.
  assert.equal(joinDuration({ start: 0.05, end: 2.05 }, { start: 0.06, end: 2.06 }, 0)?.toFixed(6), '1.990000');
  // Cut at 1.2 s (the first file of a window): the rest of it, 0.85 s, less the lead.
  assert.equal(joinDuration({ start: 0.05, end: 2.05 }, { start: 0.06, end: 2.06 }, 1.2)?.toFixed(6), '0.790000');
});

test('without both spans, or when they make no sense, ffmpeg keeps its own duration', () => {
  assert.equal(joinDuration(undefined, { start: 0, end: 2 }, 0), undefined);
  assert.equal(joinDuration({ start: 0, end: 2 }, undefined, 0), undefined);
  assert.equal(joinDuration({ start: 0, end: 2 }, { start: 0, end: 2 }, 2.5), undefined);
  assert.equal(joinDuration({ start: 0, end: Number.NaN }, { start: 0, end: 2 }, 0), undefined);
});

test('files under a relative record_path are found by ffmpeg: the list names them by absolute path', async (t) => {
  const dir = await tempDir(t);
  const scratch = join(dir, 'jobs', 'j1.work');
  await mkdir(scratch, { recursive: true });
  const clip = join(dir, 'rec', 'cam', "o'clock.mp4");
  await mkdir(join(dir, 'rec', 'cam'), { recursive: true });
  await run('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10:duration=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', clip]);
  // As the demo has it: record_path given relative to the recorder's working directory.
  const rel = relative(process.cwd(), clip);
  const windowList = await writeConcatList([{ path: rel, startMs: 0, endMs: 1000, size: 1 }], 0, 1000, scratch);
  const partsList = await writePlainConcatList([rel], scratch);
  for (const list of [windowList.listPath, partsList]) {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-f', 'concat', '-safe', '0', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', list]);
    assert.equal(stdout.trim(), '10', `ffmpeg reads the file through ${list}`);
  }
});
