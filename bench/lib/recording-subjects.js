// Benchmark "recording", the subjects measured: the Vigil recorder (native ingest, or one ffmpeg per camera) and plain
// `ffmpeg -c copy -f segment` processes; each is started on the cameras, checked to record every one of them, measured
// over the window and stopped.
import { closeSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep, spawnTracked, stopAll, stopTracked } from './lifecycle.js';
import { descendants } from './proc.js';
import { measure, StarvedError, waitAllWriting } from './recording-window.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECORDER_BIN = join(ROOT, 'recorder', 'bin', 'vigil-recorder.js');
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';
export const SEGMENT_SECONDS = 60;

/** The recorder subjects and the `ingest` their config sets. */
export const INGEST = { native: 'native', 'vigil-ffmpeg': 'ffmpeg', 'vigil-flags': 'native' };
export const isRecorder = (subject) => subject !== 'baseline';

function log(msg) {
  process.stderr.write(`[recording] ${msg}\n`);
}

function tail(file, bytes = 3000) {
  try {
    return readFileSync(file, 'utf8').slice(-bytes);
  } catch {
    return '';
  }
}

/**
 * `GET /api/cameras` of a recorder: how many cameras each ingest path reads (undefined: the answer has no `ingest`).
 * Three tries, 2 s apart: with 100 cameras on 2 CPUs one request can fail without the recorder being wrong.
 */
async function ingestPaths(port) {
  let error;
  for (let attempt = 0; attempt < 3; attempt++) {
    if (attempt > 0) await sleep(2000);
    try {
      const res = await globalThis.fetch(`http://127.0.0.1:${port}/api/cameras`, { signal: AbortSignal.timeout(10_000) });
      const list = await res.json();
      if (!Array.isArray(list)) throw new Error(`HTTP ${res.status}: ${JSON.stringify(list).slice(0, 200)}`);
      if (list.some((c) => !('ingest' in c))) return undefined;
      const out = {};
      for (const c of list) out[String(c.ingest)] = (out[String(c.ingest)] ?? 0) + 1;
      return out;
    } catch (err) {
      error = `${err}${err?.cause !== undefined ? ` (${err.cause?.code ?? ''} ${err.cause?.message ?? err.cause})` : ''}`;
      log(`  GET /api/cameras, try ${attempt + 1}: ${error}`);
    }
  }
  return { error };
}

/** The recorder log's lines (JSON from pino, or text) that contain `text`, from byte `from` on. */
function logLines(logFile, text, from = 0) {
  let content = '';
  try {
    content = readFileSync(logFile).subarray(from).toString('utf8');
  } catch {
    return [];
  }
  return content.split('\n').filter((line) => line.includes(text));
}

function fileSize(file) {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** A recorder with `ingest` on the cameras `urls`, measured: figures of its processes and its log (restarts, fallbacks). */
export async function runVigil({ count, kbps, urls, cameraPids, dir, opts, freePort, ingest, nodeFlags = [], recorderBin = RECORDER_BIN }) {
  const recDir = join(dir, 'rec');
  const confDir = join(dir, 'conf.d');
  await mkdir(confDir, { recursive: true });
  await mkdir(recDir, { recursive: true }); // the recorder never creates record_path
  const port = await freePort();
  const config = {
    listen: `127.0.0.1:${port}`,
    record_path: recDir,
    work_dir: join(dir, 'work'),
    auth: { disabled: true },
    record: { segment_seconds: SEGMENT_SECONDS },
    ingest, // the recorder's default for ingest_read_tick_ms applies
    cameras: urls.map((source, i) => ({ id: `cam${i}`, source })),
  };
  const configFile = join(dir, 'config.yaml');
  writeFileSync(configFile, JSON.stringify(config, null, 2)); // JSON is YAML
  const logFile = join(dir, 'recorder.log');
  const logFd = openSync(logFile, 'w');
  const nodeArgs = [...nodeFlags];
  if (opts.cpuProf !== undefined) {
    await mkdir(opts.cpuProf, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', opts.cpuProf, '--cpu-prof-name', `recorder-${count}cams-${Date.now()}.cpuprofile`);
  }
  const child = spawnTracked(process.execPath, [...nodeArgs, recorderBin, '--config', configFile, '--conf-dir', confDir], {
    stdio: ['ignore', logFd, logFd],
    name: 'vigil-recorder',
  });
  closeSync(logFd);
  try {
    const keyOf = (rel) => rel.split(sep)[0];
    const alive = () => (child.exitCode !== null || child.signalCode !== null ? `recorder exited early:\n${tail(logFile)}` : undefined);
    await waitAllWriting(recDir, keyOf, count, 30_000 + count * 500, alive, 'vigil').catch((err) => {
      const Kind = err instanceof StarvedError ? StarvedError : Error;
      throw new Kind(`${err.message}\nrecorder log:\n${tail(logFile)}`);
    });
    const list = () => {
      const out = [{ pid: child.pid, role: 'node' }];
      for (const p of descendants(child.pid)) out.push({ pid: p.pid, role: p.comm === 'ffmpeg' ? 'ffmpeg' : 'other' });
      return out;
    };
    let windowFrom = 0; // log bytes before the window
    const m = await measure({ count, kbps, dir: recDir, keyOf, list, cameraPids, warmup: opts.warmup, seconds: opts.seconds, atWindowStart: () => (windowFrom = fileSize(logFile)) });
    const windowTo = fileSize(logFile);
    const paths = await ingestPaths(port);
    const isRestart = (l) => /restarting ingest|ingest ended; restarting/.test(l);
    const restarts = logLines(logFile, 'restarting').filter(isRestart).length;
    const restartsInWindow = logLines(logFile, 'restarting', windowFrom).filter(isRestart).length - logLines(logFile, 'restarting', windowTo).filter(isRestart).length;
    const fallbacks = logLines(logFile, 'falling back to ffmpeg');
    // Whatever else than recording the recorder did: what went wrong is in its log. `starved`: see StarvedError.
    const problems = [];
    const starved = [];
    const died = alive();
    if (died !== undefined) problems.push(died.split('\n')[0]);
    if (m.silentCameras.length > 0) starved.push(`${m.silentCameras.length} of ${count} camera(s) wrote nothing during the window (${m.silentCameras.slice(0, 10).join(', ')}${m.silentCameras.length > 10 ? ', …' : ''})`);
    if (fallbacks.length > 0) problems.push(`the recorder logged ${fallbacks.length} fallback(s) to ffmpeg, e.g.: ${fallbacks[0].slice(0, 400)}`);
    if (paths === undefined) log(`  (GET /api/cameras has no "ingest" field: the ingest path of each camera is not checked)`);
    else if (paths.error !== undefined) starved.push(`GET /api/cameras failed: ${paths.error}`);
    else if ((paths[ingest] ?? 0) !== count) problems.push(`GET /api/cameras: ${JSON.stringify(paths)} cameras per ingest path, expected ${count} "${ingest}"`);
    if (problems.length + starved.length > 0) {
      const Kind = problems.length > 0 ? Error : StarvedError;
      throw new Kind(`recorder with ingest "${ingest}", ${count} camera(s): not a valid measurement:\n  - ${[...problems, ...starved].join('\n  - ')}\nrecorder log (end):\n${tail(logFile)}`);
    }
    return { ...m, restarts, restartsInWindow, fallbacks: fallbacks.length, ingestPaths: paths };
  } finally {
    await stopTracked(child, { graceMs: 15_000 });
  }
}

/** One plain `ffmpeg -c copy -f segment` per camera, measured the same way. */
export async function runBaseline({ count, kbps, urls, cameraPids, dir, opts }) {
  const outDir = join(dir, 'out');
  await mkdir(outDir, { recursive: true });
  const errFile = join(dir, 'ffmpeg.log');
  const errFd = openSync(errFile, 'w');
  const children = urls.map((url, i) =>
    spawnTracked(
      FFMPEG,
      [
        '-hide_banner', '-nostdin', '-loglevel', 'warning',
        '-rtsp_transport', 'tcp', '-i', url,
        '-map', '0:v:0', '-c', 'copy',
        '-f', 'segment', '-segment_time', String(SEGMENT_SECONDS), '-reset_timestamps', '1',
        join(outDir, `cam${i}_%05d.mp4`),
      ],
      { stdio: ['ignore', 'ignore', errFd], name: 'baseline-ffmpeg' },
    ),
  );
  closeSync(errFd);
  try {
    const keyOf = (rel) => /^(cam\d+)_/.exec(rel)?.[1];
    const alive = () => {
      const dead = children.filter((c) => c.exitCode !== null || c.signalCode !== null).length;
      return dead > 0 ? `${dead} baseline ffmpeg(s) exited early:\n${tail(errFile)}` : undefined;
    };
    // ffmpeg gives up on a camera it does not hear from (a starved camera server): as retryable as a silent camera.
    await waitAllWriting(outDir, keyOf, count, 30_000 + count * 500, alive, 'baseline').catch((err) => {
      throw new StarvedError(err.message);
    });
    const list = () => children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => ({ pid: c.pid, role: 'ffmpeg' }));
    const m = await measure({ count, kbps, dir: outDir, keyOf, list, cameraPids, warmup: opts.warmup, seconds: opts.seconds });
    if (m.silentCameras.length > 0) {
      throw new StarvedError(`baseline, ${count} camera(s): not a valid measurement: ${m.silentCameras.length} camera(s) wrote nothing during the window (${m.silentCameras.slice(0, 10).join(', ')})\nffmpeg log (end):\n${tail(errFile)}`);
    }
    const exited = children.filter((c) => c.exitCode !== null || c.signalCode !== null).length;
    return { ...m, restarts: exited, restartsInWindow: exited };
  } finally {
    await stopAll(children, { signal: 'SIGTERM', graceMs: 5000 });
  }
}
