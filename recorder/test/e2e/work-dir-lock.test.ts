// One recorder per work_dir: a second one exits naming the first and repairs nothing; the lock of a killed recorder is stale.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { fileSize, getJson } from './helpers.js';

test('a second recorder on the same work_dir exits with a message naming the first, and leaves its open segment alone; a killed recorder\'s lock does not hold', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const config = { auth: { disabled: true }, stall_seconds: 5, record: { segment_seconds: 60 }, cameras: [{ id: 'pattern', source: 'testsrc:size=320x180&rate=10&gop=10&bitrate=200k' }] };
  const first = await startRecorderProcess({ dir: join(dir, 'a'), config });
  t.after(() => first.stop());
  await waitUntil(async () => (await getJson(`${first.url}/api/archive/pattern/current`)).status === 200, 30_000, 'the first recorder records');
  const open = (await getJson(`${first.url}/api/archive/pattern/current`)).body as { filename: string };
  const openPath = join(first.recordPath, open.filename);
  const journal = await readdir(join(first.workDir, 'open-segments'));
  assert.equal(journal.length, 1, 'the open segment is in the journal');

  const second = await startRecorderProcess({
    dir: join(dir, 'b'),
    ownPaths: true,
    waitListening: false,
    config: { ...config, record_path: first.recordPath, work_dir: first.workDir },
  });
  t.after(() => second.stop());
  const exit = await second.waitExit(20_000);
  assert.equal(exit.code, 1, 'the second recorder exits with an error');
  assert.match(second.output(), new RegExp(`work_dir ${first.workDir} is in use by another vigil-recorder \\(pid ${first.pid} on `));
  // It repaired nothing: the first recorder's open file is still open, in the journal, and growing.
  assert.deepEqual(await readdir(join(first.workDir, 'open-segments')), journal);
  const size = await fileSize(openPath);
  await waitUntil(async () => (await fileSize(openPath)) > size, 10_000, 'the open file keeps growing');
  assert.equal(((await getJson(`${first.url}/api/archive/pattern/current`)).body as { filename: string }).filename, open.filename);

  // kill -9 leaves the lock behind; its process is gone, so the next recorder takes it and repairs the open file.
  first.signal('SIGKILL');
  await first.waitExit();
  const third = await startRecorderProcess({ dir: join(dir, 'c'), ownPaths: true, config: { ...config, record_path: first.recordPath, work_dir: first.workDir } });
  t.after(() => third.stop());
  await third.waitForLog((l) => /repair/i.test(l.msg), 20_000);
  await waitUntil(async () => (await getJson(`${third.url}/api/archive/pattern/current`)).status === 200, 30_000, 'the third recorder records');
});
