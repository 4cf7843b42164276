// One recorder per work_dir: a second one exits naming the first and repairs nothing, also while the first is stopped; a killed recorder's lock does not hold; a recorder that loses its lock stops writing.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitUntil } from '@vigil/testing/processes';
import { tempDir } from '@vigil/testing/temp-dir';
import { startRecorderProcess } from '../support/recorder-process.js';
import { currentFilename, fileSize, getJson } from './helpers.js';

const config = { auth: { disabled: true }, stall_seconds: 5, record: { segment_seconds: 60 }, cameras: [{ id: 'pattern', source: 'testsrc:size=320x180&rate=10&gop=10&bitrate=200k' }] };

test('a second recorder on the same work_dir exits with a message naming the first, and leaves its open segment alone; a killed recorder\'s lock does not hold', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
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

const isRoot = process.getuid?.() === 0;

/** The pids of the processes whose parent is `pid` and whose command is `comm`. */
async function childrenNamed(pid: number, comm: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close) === comm && Number(stat.slice(close + 2).split(' ')[1]) === pid) found.push(Number(entry));
  }
  return found;
}

test('a recorder stopped (SIGSTOP) for longer than any heartbeat keeps its work_dir: a recorder in another container exits naming it, and the first records on when continued', { skip: isRoot ? false : 'needs root to run the recorders in UTS namespaces of their own (unshare --uts), as in two containers', timeout: 120_000 }, async (t) => {
  const dir = await tempDir(t);
  const first = await startRecorderProcess({ dir: join(dir, 'a'), config, hostname: 'pod-a' });
  t.after(() => first.stop());
  t.after(() => first.signal('SIGCONT'));
  await waitUntil(async () => (await getJson(`${first.url}/api/archive/pattern/current`)).status === 200, 30_000, 'the first recorder records');
  const open = (await getJson(`${first.url}/api/archive/pattern/current`)).body as { filename: string };
  const openPath = join(first.recordPath, open.filename);
  const journal = await readdir(join(first.workDir, 'open-segments'));

  // Stalled (a debugger, a frozen cgroup, a hung disk) past what any heartbeat would allow: it still owns its files.
  first.signal('SIGSTOP');
  await new Promise((r) => setTimeout(r, 20_000));
  const sizeStopped = await fileSize(openPath);
  const second = await startRecorderProcess({
    dir: join(dir, 'b'),
    ownPaths: true,
    waitListening: false,
    hostname: 'pod-b',
    config: { ...config, record_path: first.recordPath, work_dir: first.workDir },
  });
  t.after(() => second.stop());
  const exit = await second.waitExit(20_000);
  assert.equal(exit.code, 1, 'the second recorder exits with an error');
  assert.match(second.output(), new RegExp(`work_dir ${first.workDir} is in use by another vigil-recorder \\(pid ${first.pid} on pod-a, since `));
  assert.deepEqual(await readdir(join(first.workDir, 'open-segments')), journal, 'the second repaired nothing');

  // Continued, the first is the only writer and records on (into the file it had open, or, when its stall watchdog saw
  // the 20 s first and ended that file, into the next).
  assert.equal(await fileSize(openPath), sizeStopped, 'nobody touched the stopped recorder\'s open file');
  first.signal('SIGCONT');
  const sizes = new Map<string, number>();
  await waitUntil(async () => {
    const filename = await currentFilename(first.url, 'pattern');
    if (filename === undefined) return false;
    const size = await fileSize(join(first.recordPath, filename));
    const before = sizes.get(filename);
    sizes.set(filename, size);
    return before !== undefined && size > before;
  }, 30_000, 'the first recorder records again', 500);
  assert.ok(!second.logs().some((l) => /^segment left open by the previous run repair/.test(l.msg)), 'the second never repaired a file');
});

test('a recorder whose lock is taken from it (the process holding it killed) stops writing at once and leaves its open file to the next holder', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const first = await startRecorderProcess({ dir: join(dir, 'a'), config });
  t.after(() => first.stop());
  await waitUntil(async () => (await getJson(`${first.url}/api/archive/pattern/current`)).status === 200, 30_000, 'the recorder records');
  const open = (await getJson(`${first.url}/api/archive/pattern/current`)).body as { filename: string };
  const keepers = await childrenNamed(first.pid, 'flock');
  assert.equal(keepers.length, 1, 'one flock process holds the lock for the recorder');
  process.kill(keepers[0] as number, 'SIGKILL');
  const exit = await first.waitExit(10_000);
  assert.equal(exit.code, 1, 'the recorder exits with an error');
  const fatal = first.logs().find((l) => l.msg.startsWith('lost the lock on work_dir'));
  assert.ok(fatal !== undefined, 'it says why');
  assert.equal(fatal['work_dir'], first.workDir);
  // It closed nothing on its way out: the open file is still in the journal, and stays the same size.
  assert.equal((await readdir(join(first.workDir, 'open-segments'))).length, 1);
  const size = await fileSize(join(first.recordPath, open.filename));
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(await fileSize(join(first.recordPath, open.filename)), size, 'nothing is written after the loss');

  const next = await startRecorderProcess({ dir: join(dir, 'b'), ownPaths: true, config: { ...config, record_path: first.recordPath, work_dir: first.workDir } });
  t.after(() => next.stop());
  await next.waitForLog((l) => /repair/i.test(l.msg), 20_000);
});
