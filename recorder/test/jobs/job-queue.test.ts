// The job queue on its own: limits per kind, submit order, restart recovery, interruption, expiry.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { pino } from 'pino';
import { JobQueue, type JobRunner } from '../../src/jobs/job-queue.js';
import type { JobRecord } from '../../src/jobs/job-record.js';
import { JobStore } from '../../src/jobs/job-store.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { ManualClock } from '../support/fakes.js';

function gatedRunner(): { runner: JobRunner; release(): void; started: string[] } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((r) => (open = r));
  const started: string[] = [];
  return {
    started,
    release: () => open(),
    runner: async (job, ctx) => {
      started.push(job.job_id);
      await Promise.race([gate, new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted'))))]);
      await writeFile(ctx.resultPath, 'result');
    },
  };
}

test('4 exports and 2 time-lapses run at once; the rest wait in submit order, per kind', async (t) => {
  const dir = await tempDir(t);
  const g = gatedRunner();
  const q = new JobQueue({ store: new JobStore(dir), log: pino({ level: 'silent' }), runners: { export: g.runner, timelapse: g.runner, assemble: g.runner }, resultTtlMs: 3_600_000 });
  await q.open();
  t.after(() => q.close());
  const ex: JobRecord[] = [];
  for (let i = 0; i < 6; i++) ex.push(await q.submit({ camera_id: 'c', from: 1, to: 2, kind: 'export' }));
  const tl: JobRecord[] = [];
  for (let i = 0; i < 3; i++) tl.push(await q.submit({ camera_id: 'c', from: 1, to: 2, kind: 'timelapse', speed: 10 }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ex.map((j) => q.get(j.job_id)?.state), ['running', 'running', 'running', 'running', 'pending', 'pending']);
  assert.deepEqual(tl.map((j) => q.get(j.job_id)?.state), ['running', 'running', 'pending']);
  g.release();
  for (let i = 0; i < 500 && q.list().some((j) => j.state !== 'done'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(q.list().every((j) => j.state === 'done' && j.size_bytes === 6 && j.progress === 1));
  assert.deepEqual(g.started.slice(0, 4), ex.slice(0, 4).map((j) => j.job_id));
  // The last records may still be on their way to disk: they land before the folder goes.
  await q.close();
});

test('a job record that cannot be written (its folder gone) is logged; the process goes on and the queue runs the next job', async (t) => {
  const dir = await tempDir(t);
  const lines: Array<{ msg: string; job?: string; err?: string }> = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
  const g = gatedRunner();
  const store = new JobStore(dir);
  const q = new JobQueue({ store, log, runners: { export: g.runner, timelapse: g.runner, assemble: g.runner }, resultTtlMs: 3_600_000 });
  await q.open();
  t.after(() => q.close());
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.after(() => process.off('unhandledRejection', onUnhandled));
  const job = await q.submit({ camera_id: 'c', from: 1, to: 2, kind: 'export' });
  await rm(store.dir, { recursive: true, force: true });
  g.release();
  for (let i = 0; i < 500 && !lines.some((l) => l.msg.startsWith('archive job record could not be saved')); i++) await new Promise((r) => setTimeout(r, 10));
  const logged = lines.find((l) => l.msg.startsWith('archive job record could not be saved'));
  assert.equal(logged?.job, job.job_id, 'the failed write is logged with the job');
  assert.match(logged?.err ?? '', /ENOENT/);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(unhandled, [], 'no unhandled rejection (it would end the recorder)');
  // The folder back, the queue still takes and finishes jobs.
  await mkdir(store.dir, { recursive: true });
  const next = await q.submit({ camera_id: 'c', from: 1, to: 2, kind: 'export' });
  for (let i = 0; i < 500 && q.get(next.job_id)?.state !== 'done'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(q.get(next.job_id)?.state, 'done');
});

test('after a restart pending and running jobs run again; one restarted 3 times fails as interrupted', async (t) => {
  const dir = await tempDir(t);
  const store = new JobStore(dir);
  await store.open();
  const base = { camera_id: 'c', from: 1, to: 2, kind: 'export' as const, progress: 0.4, created_at: 100 };
  await store.save({ ...base, job_id: 'aaaaaaaaaaaaaaa1', state: 'running', attempts: 1 });
  await store.save({ ...base, job_id: 'aaaaaaaaaaaaaaa2', state: 'pending', attempts: 0 });
  await store.save({ ...base, job_id: 'aaaaaaaaaaaaaaa3', state: 'running', attempts: 3 });
  const ran: string[] = [];
  const runner: JobRunner = async (job, ctx) => {
    ran.push(job.job_id);
    await writeFile(ctx.resultPath, 'x');
  };
  const q = new JobQueue({ store, log: pino({ level: 'silent' }), runners: { export: runner, timelapse: runner, assemble: runner }, resultTtlMs: 3_600_000 });
  await q.open();
  t.after(() => q.close());
  for (let i = 0; i < 100 && ['aaaaaaaaaaaaaaa1', 'aaaaaaaaaaaaaaa2'].some((id) => q.get(id)?.state !== 'done'); i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(q.get('aaaaaaaaaaaaaaa1')?.state, 'done');
  assert.equal(q.get('aaaaaaaaaaaaaaa2')?.state, 'done');
  assert.equal(q.get('aaaaaaaaaaaaaaa3')?.state, 'failed');
  assert.equal(q.get('aaaaaaaaaaaaaaa3')?.reason, 'interrupted');
  assert.deepEqual(ran.sort(), ['aaaaaaaaaaaaaaa1', 'aaaaaaaaaaaaaaa2']);
});

test('a result past its retention time is deleted and reported expired', async (t) => {
  const dir = await tempDir(t);
  const clock = new ManualClock(1_000_000_000_000);
  const runner: JobRunner = async (_job, ctx) => writeFile(ctx.resultPath, 'x');
  const store = new JobStore(dir);
  const q = new JobQueue({ store, log: pino({ level: 'silent' }), runners: { export: runner, timelapse: runner, assemble: runner }, resultTtlMs: 60_000, clock });
  await q.open();
  t.after(() => q.close());
  const job = await q.submit({ camera_id: 'c', from: 1, to: 2, kind: 'export' });
  for (let i = 0; i < 100 && q.get(job.job_id)?.state !== 'done'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(await q.isExpired(q.get(job.job_id) as JobRecord), false);
  clock.advance(61_000);
  assert.equal(await q.isExpired(q.get(job.job_id) as JobRecord), true);
  await assert.rejects(import('node:fs/promises').then((fs) => fs.access(store.resultPath(job.job_id))));
});
