// Job records on disk: saves of one record that overlap (progress, completion, expiry at once) all land, in order.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '@vigil/testing/temp-dir';
import type { JobRecord } from '../../src/jobs/job-record.js';
import { JobStore } from '../../src/jobs/job-store.js';

test('overlapping saves of one job record never fail and the last one wins; a removal waits for them', async (t) => {
  const store = new JobStore(await tempDir(t));
  await store.open();
  const job: JobRecord = { job_id: 'aaaaaaaaaaaaaaa1', camera_id: 'cam', kind: 'export', from: 0, to: 60, created_at: 1, state: 'running', attempts: 1, progress: 0 };
  // Before the fix the second of two saves at once found the shared temporary file renamed away (ENOENT).
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.save({ ...job, progress: i })));
  const saved = JSON.parse(await readFile(join(store.dir, `${job.job_id}.json`), 'utf8')) as { progress: number };
  assert.equal(saved.progress, 19);
  const lastSave = store.save({ ...job, state: 'done' });
  await store.removeRecord(job.job_id);
  await lastSave;
  assert.deepEqual((await store.open()).map((j) => j.job_id), [], 'the removal came after the save it overlapped');
});
