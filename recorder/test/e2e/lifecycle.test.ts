// Process lifecycle: SIGTERM closes files in time, SIGHUP reloads cameras, bad configs stop the start.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { probe, topLevelBoxes } from '@vigil/testing/media-probe';
import { processesMatching, waitUntil } from '@vigil/testing/processes';
import { startRecorderProcess } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { getJson, segmentFiles } from './helpers.js';

const testsrc = (size = '320x240'): string => `testsrc:size=${size}&rate=25&gop=25&bitrate=300k`;
const ffmpegOf = async (cameraId: string): Promise<number | undefined> => (await processesMatching(`vigil-camera=${cameraId} `))[0]?.pid;

test('SIGTERM closes every open file and exits within 10 s', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, record: { segment_seconds: 60 }, cameras: [{ id: 'sigterm-a', source: testsrc() }, { id: 'sigterm-b', source: testsrc() }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/sigterm-b/current`)).status === 200 && (await getJson(`${rec.url}/api/archive/sigterm-a/current`)).status === 200, 20_000, 'both recording');
  await new Promise((r) => setTimeout(r, 2000));
  const sentAt = Date.now();
  rec.signal('SIGTERM');
  const exit = await rec.waitExit(10_000);
  assert.equal(exit.code, 0);
  assert.ok(Date.now() - sentAt < 10_000);
  assert.deepEqual(await readdir(join(rec.workDir, 'open-segments')), [], 'every open file was closed');
  const files = await segmentFiles(rec.recordPath);
  assert.equal(files.length, 2);
  for (const f of files) {
    const p = await probe(join(rec.recordPath, f));
    assert.equal(p.errors, '');
    assert.ok(p.playSeconds >= 1.5, `${f} kept what was recorded (${p.playSeconds}s)`);
  }
  assert.deepEqual(await processesMatching('vigil-camera=sigterm-'), []);
});

test('record.format mp4: written as .part, closed into a progressive MP4; current answers 404', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({
    dir,
    config: { auth: { disabled: true }, record: { format: 'mp4', segment_seconds: 2 }, cameras: [{ id: 'mp4-p', source: testsrc() }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => (await segmentFiles(rec.recordPath)).length >= 2, 30_000, 'two closed mp4 segments');
  assert.equal((await segmentFiles(rec.recordPath, '.part')).length, 1, 'the open segment is a .part');
  const current = await getJson(`${rec.url}/api/archive/mp4-p/current`);
  assert.equal(current.status, 404);
  assert.equal((current.body as { error: { code: string } }).error.code, 'not_recording');
  for (const f of await segmentFiles(rec.recordPath)) {
    const path = join(rec.recordPath, f);
    const boxes = await topLevelBoxes(path);
    assert.ok(!boxes.includes('moof'), `${f} is not fragmented (${boxes.join(',')})`);
    assert.ok(boxes.indexOf('moov') > boxes.indexOf('mdat'), `${f} has its header at the end`);
    const p = await probe(path);
    assert.equal(p.errors, '');
    assert.ok(Math.abs(p.playSeconds - 2) <= 0.5, `${f} lasts ${p.playSeconds}s`);
  }
});

test('SIGHUP: added cameras start, removed ones stop, changed ones restart, others are untouched', { timeout: 60_000 }, async (t) => {
  const dir = await tempDir(t);
  const base = { auth: { disabled: true }, record: { segment_seconds: 60 } };
  const rec = await startRecorderProcess({
    dir,
    config: { ...base, cameras: [{ id: 'hup-keep', source: testsrc() }, { id: 'hup-drop', source: testsrc() }, { id: 'hup-change', source: testsrc() }] },
  });
  t.after(() => rec.stop());
  await waitUntil(async () => (await ffmpegOf('hup-keep')) !== undefined && (await ffmpegOf('hup-change')) !== undefined, 15_000, 'ffmpegs running');
  const keepPid = await ffmpegOf('hup-keep');
  const changePid = await ffmpegOf('hup-change');
  await rec.writeConfig({ ...base, cameras: [{ id: 'hup-keep', source: testsrc() }, { id: 'hup-change', source: testsrc('352x288') }] });
  // A conf.d file adds a camera too.
  await writeFile(join(rec.confDir, '50-new.yaml'), stringify({ cameras: [{ id: 'hup-new', source: testsrc() }] }));
  rec.signal('SIGHUP');
  const reload = await rec.waitForLog((l) => l.msg === 'configuration reloaded');
  assert.deepEqual({ added: reload['added'], updated: reload['updated'], removed: reload['removed'] }, { added: ['hup-new'], updated: ['hup-change'], removed: ['hup-drop'] });
  await waitUntil(async () => (await ffmpegOf('hup-new')) !== undefined && ![undefined, changePid].includes(await ffmpegOf('hup-change')), 15_000, 'new and changed cameras run');
  await waitUntil(async () => (await ffmpegOf('hup-drop')) === undefined, 15_000, 'the removed camera is gone');
  assert.equal(await ffmpegOf('hup-keep'), keepPid, 'the untouched camera kept its ffmpeg');
  assert.equal((await getJson(`${rec.url}/api/archive/hup-drop/current`)).status, 404);
  await waitUntil(async () => (await getJson(`${rec.url}/api/archive/hup-new/current`)).status === 200, 15_000, 'new camera records');

  // A broken file on reload is refused and the running cameras carry on.
  await writeFile(rec.configFile, 'cameras:\n  - id: "bad id"\n    source: "testsrc:"\n');
  rec.signal('SIGHUP');
  const failed = await rec.waitForLog((l) => l.msg === 'configuration reload failed; keeping the running configuration');
  assert.match(String(failed['err']), /cameras\[0\]\.id: must match/);
  assert.equal(await ffmpegOf('hup-keep'), keepPid);
});

test('SIGHUP storm: configurations swapped in quick succession end with exactly the last one’s ffmpegs, one per camera', { timeout: 90_000 }, async (t) => {
  const dir = await tempDir(t);
  const base = { auth: { disabled: true }, record: { segment_seconds: 60 } };
  const cams = (spec: Array<[string, string]>) => ({ ...base, cameras: spec.map(([id, size]) => ({ id: `storm-${id}`, source: testsrc(size) })) });
  const rec = await startRecorderProcess({ dir, config: cams([['a', '320x240'], ['b', '320x240']]) });
  t.after(() => rec.stop());
  await waitUntil(async () => (await processesMatching('vigil-camera=storm-')).length === 2, 15_000, 'two ffmpegs');
  // Each swap changes, removes or re-adds cameras while the previous restarts are still stopping ffmpegs.
  const swaps: Array<Array<[string, string]>> = [
    [['a', '352x288'], ['b', '320x240']],
    [['b', '320x240']],
    [['a', '320x240'], ['b', '352x288'], ['c', '320x240']],
    [['a', '176x144'], ['c', '352x288']],
    [],
    [['b', '176x144'], ['c', '320x240'], ['d', '320x240']],
  ];
  for (const spec of swaps) {
    await rec.writeConfig(cams(spec));
    rec.signal('SIGHUP');
    await new Promise((r) => setTimeout(r, 30));
  }
  const wanted = new Map([['storm-b', '176x144'], ['storm-c', '320x240'], ['storm-d', '320x240']]);
  const settled = async (): Promise<boolean> => {
    const procs = (await processesMatching('vigil-camera=storm-')).filter((p) => !p.state.startsWith('Z'));
    const ids = procs.map((p) => /vigil-camera=(\S+)/.exec(p.args)?.[1] ?? '?');
    return ids.length === wanted.size && [...wanted].every(([id, size]) => procs.some((p) => p.args.includes(`vigil-camera=${id} `) && p.args.includes(`size=${size}`)));
  };
  await waitUntil(settled, 30_000, 'exactly storm-b (176x144), storm-c and storm-d run');
  // And it stays that way: no late start of a superseded version.
  await new Promise((r) => setTimeout(r, 2000));
  assert.ok(await settled(), 'still exactly the last configuration two seconds later');
  for (const id of wanted.keys()) await waitUntil(async () => (await getJson(`${rec.url}/api/archive/${id}/current`)).status === 200, 20_000, `${id} records`);
  assert.equal((await getJson(`${rec.url}/api/archive/storm-a/current`)).status, 404);
});

test('a bad configuration stops the start with a non-zero exit naming the key', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [{ id: 'ok', source: 'testsrc:' }, { id: '-bad', source: 'testsrc:' }] }, waitListening: false });
  const exit = await rec.waitExit();
  assert.equal(exit.code, 2);
  assert.match(rec.output(), /cameras\[1\]\.id: must match \^\[A-Za-z0-9\]\[A-Za-z0-9\._-\]\{0,63\}\$/);
});

test('a port another process holds stops the start: the cameras are stopped and the exit is non-zero, naming the address', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const port = (holder.address() as AddressInfo).port;
  const rec = await startRecorderProcess({ dir, port, config: { auth: { disabled: true }, cameras: [{ id: 'busy-port', source: testsrc() }] }, waitListening: false });
  t.after(() => rec.stop());
  const exit = await rec.waitExit(15_000);
  assert.equal(exit.code, 1);
  assert.match(rec.output(), new RegExp(`EADDRINUSE.*127\\.0\\.0\\.1:${port}`));
  assert.ok(rec.logs().some((l) => l.msg === 'cannot listen; stopping'), 'the log says why it stops');
  assert.deepEqual(await processesMatching('vigil-camera=busy-port '), [], 'no ffmpeg is left behind');
});

test('without tokens the recorder refuses to start unless auth.disabled is true', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { cameras: [] }, waitListening: false });
  const exit = await rec.waitExit();
  assert.equal(exit.code, 2);
  assert.match(rec.output(), /refusing to start: auth\.tokens: no token is configured/);
});

test('with auth disabled a ":port" listen binds loopback only, and every endpoint is open', { timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const rec = await startRecorderProcess({ dir, config: { auth: { disabled: true }, cameras: [] } });
  t.after(() => rec.stop());
  await rec.stop();
  const port = new URL(rec.url).port;
  const open = await startRecorderProcess({ dir, config: { auth: { disabled: true }, listen: `:${port}`, cameras: [] }, port: Number(port) });
  t.after(() => open.stop());
  const line = await open.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('listening on'));
  assert.equal(line['url'], `http://127.0.0.1:${port}`);
});
