// Benchmark "recording": CPU and memory of the Vigil recorder — native RTSP ingest (subject "native") and one ffmpeg per
// camera ("vigil-ffmpeg") — against plain `ffmpeg -c copy -f segment` processes ("baseline") recording the same
// GStreamer cameras, alternated in one invocation. A recorder run counts only if it really recorded every camera the
// way it was asked to: a camera with nothing written in the window, or native ingest falling back to ffmpeg, fails it.
import { existsSync, openSync, closeSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeBframeLoop } from './lib/bframe-loop.js';
import { startCameras } from './lib/cameras.js';
import { makeTempDir, removeTempDir, sleep, spawnTracked, stopAll, stopTracked } from './lib/lifecycle.js';
import { descendants, readMachineTicks, WindowSampler } from './lib/proc.js';

export const description =
  'recorder with native ingest / with ffmpeg per camera vs plain `ffmpeg -c copy -f segment`: CPU and memory for 1, 10, 50, 100 GStreamer cameras (720p, 2 Mbps H.264, a fifth of them with B-frames)';

/**
 * Which share of the cameras sends H.264 High with 2 B-frames (the rest constrained baseline, no B-frames):
 * VIGIL_BENCH_BFRAME_SHARE, 0..1, default 0.2 (10 of 50 cameras). Rounded per count; 0 measures plain cameras only.
 */
const BFRAME_SHARE = (() => {
  const share = Number(process.env.VIGIL_BENCH_BFRAME_SHARE ?? 0.2);
  return Number.isFinite(share) && share >= 0 && share <= 1 ? share : 0.2;
})();

/** What can be measured: `--subjects` picks among these (vigil-flags also needs --recorder-node-args or --recorder-bin). */
export const subjects = ['native', 'vigil-ffmpeg', 'baseline', 'vigil-flags'];
const DEFAULT_SUBJECTS = ['native', 'vigil-ffmpeg', 'baseline'];
/** The recorder subjects and the `ingest` their config sets. */
const INGEST = { native: 'native', 'vigil-ffmpeg': 'ffmpeg', 'vigil-flags': 'native' };

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDER_BIN = join(ROOT, 'recorder', 'bin', 'vigil-recorder.js');
const SUPPORT = join(ROOT, 'testing', 'dist', 'src', 'rtsp-camera.js');
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';

/** The camera stream: what a typical 720p camera sends. */
const STREAM = { width: 1280, height: 720, fps: 25, gop: 50, bitrateKbps: 2000, seconds: 20 };
/** `WxH@KBPS` (25 fps, GOP 50) → a stream; throws on anything else. */
export function parseStream(spec) {
  const m = /^(\d+)x(\d+)@(\d+)$/.exec(String(spec));
  if (m === null) throw new Error(`--stream must look like 1280x720@2000 (width x height @ kbit/s), got "${spec}"`);
  return { ...STREAM, width: Number(m[1]), height: Number(m[2]), bitrateKbps: Number(m[3]) };
}

const streamName = (st) => `${st.width}x${st.height}@${st.bitrateKbps}`;

/**
 * The stream the cameras of one count send: STREAM unless --stream. (Per count, so that a lighter stream for large counts
 * stays a one-line change; a 640x360@1000 stream was tried for 100 cameras and saved the GStreamer servers little: their
 * cost is per frame — ~1 core of 2 for 100 cameras at 25 fps either way — not per byte.)
 */
function streamFor(count, opts) {
  return opts.stream !== undefined ? parseStream(opts.stream) : STREAM;
}
const SEGMENT_SECONDS = 60;

export const defaults = {
  cameras: [1, 10, 50, 100],
  subjects: undefined, // default: DEFAULT_SUBJECTS, plus vigil-flags with recorderNodeArgs
  stream: undefined, // 'WxH@KBPS' (25 fps, GOP 50) for every count; default STREAM, 1280x720@2000
  seconds: 30, // measurement window
  warmup: 10, // after every camera has started writing
  repeats: 2, // runs of every subject per camera count; medians are reported
  perServer: 25, // mount points per GStreamer server process
  cpuProf: undefined, // directory: run the recorder under `node --cpu-prof` (its numbers are then not comparable)
  recorderNodeArgs: undefined, // string: also measure "vigil-flags", the recorder (native ingest) under `node ARGS`
  recorderBin: undefined, // absolute path: "vigil-flags" runs this recorder script (another checkout's build) instead of this one's
  keep: false, // keep the temp dir (recordings, logs)
};

function log(msg) {
  process.stderr.write(`[recording] ${msg}\n`);
}

/** Files on disk per camera key under `dir` as { bytes, files }; `keyOf(relativePath)` names the camera of a file (or undefined). */
function filesByCamera(dir, keyOf) {
  const out = new Map();
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true });
  } catch {
    return out;
  }
  for (const rel of entries) {
    const key = keyOf(String(rel));
    if (key === undefined) continue;
    let st;
    try {
      st = statSync(join(dir, String(rel)));
    } catch {
      continue; // renamed or removed meanwhile
    }
    if (!st.isFile()) continue;
    const e = out.get(key) ?? { bytes: 0, files: 0 };
    e.bytes += st.size;
    e.files++;
    out.set(key, e);
  }
  return out;
}

/** Bytes on disk per camera key under `dir`. */
function bytesByCamera(dir, keyOf) {
  return new Map([...filesByCamera(dir, keyOf)].map(([k, e]) => [k, e.bytes]));
}

/** Node flags split on whitespace (no quoting: V8/Node flags need none). */
export function splitArgs(text) {
  return text === undefined ? [] : text.split(/\s+/).filter((s) => s !== '');
}

const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * A run spoilt by a starved machine rather than by the subject: cameras that did not start writing in time or wrote
 * nothing in the window, a request that failed. This machine is shared; such a run is repeated once it has calmed down
 * (RETRIES times at most). A fallback to ffmpeg, a wrong ingest path or a recorder that exited are never retried.
 */
class StarvedError extends Error {}
const RETRIES = 2;
const CALM_LOAD = 3; // 1-minute load average to wait for before a retry (at most CALM_WAIT_MS)
const CALM_WAIT_MS = 180_000;

async function waitForCalm() {
  const deadline = Date.now() + CALM_WAIT_MS;
  while (loadavg()[0] >= CALM_LOAD && Date.now() < deadline) await sleep(5000);
  return loadavg()[0];
}

async function waitAllWriting(dir, keyOf, count, timeoutMs, alive, what) {
  const deadline = Date.now() + timeoutMs;
  let writing = 0;
  while (Date.now() < deadline) {
    const problem = alive();
    if (problem !== undefined) throw new Error(`${what}: ${problem}`);
    writing = [...bytesByCamera(dir, keyOf).values()].filter((b) => b > 0).length;
    if (writing >= count) return;
    await sleep(500);
  }
  throw new StarvedError(`${what}: only ${writing} of ${count} cameras wrote data within ${timeoutMs / 1000} s`);
}

function tail(file, bytes = 3000) {
  try {
    return readFileSync(file, 'utf8').slice(-bytes);
  } catch {
    return '';
  }
}

/**
 * Measures one subject that is already running: warm-up, then the window. `list()` names the subject's processes; the
 * camera servers are sampled alongside as role 'cameras' (not part of any subject's figures: they show starvation).
 * Every camera is `cam<i>`: those with no byte written during the window are listed in `silentCameras`.
 */
async function measure({ count, kbps, dir, keyOf, list, cameraPids, warmup, seconds, atWindowStart = () => undefined }) {
  await sleep(warmup * 1000);
  atWindowStart();
  const before = bytesByCamera(dir, keyOf);
  const machineBefore = readMachineTicks();
  const sampler = new WindowSampler(() => [...list(), ...cameraPids.map((pid) => ({ pid, role: 'cameras' }))]).start();
  await sleep(seconds * 1000);
  const result = sampler.stop();
  const machineAfter = readMachineTicks();
  const afterFiles = filesByCamera(dir, keyOf);
  const after = new Map([...afterFiles].map(([k, e]) => [k, e.bytes]));
  // Files can be closed/renamed but not shrink; a camera that stopped writing shows as a low rate.
  const written = sum(after) - sum(before);
  const grew = (k) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
  const cameraKeys = Array.from({ length: count }, (_, i) => `cam${i}`);
  const lowCameras = cameraKeys.filter((k) => (grew(k) * 8) / 1000 / result.seconds < kbps * 0.5).length;
  const silentCameras = cameraKeys.filter((k) => grew(k) <= 0);
  const machineTotal = machineAfter.total - machineBefore.total;
  return {
    ...result,
    writtenKbpsPerCamera: (written * 8) / 1000 / result.seconds / count,
    lowCameras,
    silentCameras,
    segmentFiles: [...afterFiles.values()].reduce((a, e) => a + e.files, 0),
    machineBusyPercent: machineTotal > 0 ? ((machineAfter.busy - machineBefore.busy) / machineTotal) * 100 : NaN,
  };
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

async function runVigil({ count, kbps, urls, cameraPids, dir, opts, freePort, ingest, nodeFlags = [], recorderBin = RECORDER_BIN }) {
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

async function runBaseline({ count, kbps, urls, cameraPids, dir, opts }) {
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

function median(values) {
  const v = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

const r1 = (x) => Math.round(x * 10) / 10;
const r2 = (x) => Math.round(x * 100) / 100;
const isRecorder = (subject) => subject !== 'baseline';

/** The subjects of this invocation, in run order (see `subjects`); [] when --subjects names none of ours. */
export function chooseSubjects(opts) {
  const flags = splitArgs(opts.recorderNodeArgs);
  let chosen = opts.subjects === undefined ? [...DEFAULT_SUBJECTS] : opts.subjects.filter((s) => subjects.includes(s));
  if (opts.subjects !== undefined && chosen.length === 0) return [];
  const other = flags.length > 0 || opts.recorderBin !== undefined;
  if (chosen.includes('vigil-flags') && !other) throw new Error('subject vigil-flags needs --recorder-node-args "ARGS" or --recorder-bin PATH');
  if (other && !chosen.includes('vigil-flags')) chosen = [...chosen, 'vigil-flags'];
  return chosen;
}

const NONE = { cpuPercent: 0, rssPeakMiB: 0, rssMeanMiB: 0, pssMiB: 0, uniqueRssMiB: 0, processes: 0 };

/**
 * One run's figures, flattened. Memory totals over the subject's processes: rssTotal, the sum of each role's peak RSS
 * (shared pages once per process); at the window's end pssTotal (PSS) and uniqueRssTotal (private pages + shared pages
 * once, see WindowSampler).
 */
function figures(subject, res) {
  const node = res.roles.node ?? NONE;
  const ff = res.roles.ffmpeg ?? NONE;
  const other = res.roles.other ?? NONE;
  return {
    subject,
    cpu: node.cpuPercent + ff.cpuPercent + other.cpuPercent,
    nodeCpu: node.cpuPercent,
    ffmpegCpu: ff.cpuPercent,
    otherCpu: other.cpuPercent,
    nodeRss: node.rssPeakMiB,
    nodePss: node.pssMiB,
    ffmpegRss: ff.rssPeakMiB,
    ffmpegPss: ff.pssMiB,
    rssTotal: node.rssPeakMiB + ff.rssPeakMiB + other.rssPeakMiB,
    pssTotal: node.pssMiB + ff.pssMiB + other.pssMiB,
    uniqueRssTotal: node.uniqueRssMiB + ff.uniqueRssMiB + other.uniqueRssMiB,
    ffmpegProcs: ff.processes,
    otherProcs: other.processes,
    kbps: res.writtenKbpsPerCamera,
    lowCameras: res.lowCameras,
    segmentFiles: res.segmentFiles,
    restarts: res.restarts,
    restartsInWindow: res.restartsInWindow,
    fallbacks: res.fallbacks ?? 0,
    camerasCpu: res.roles.cameras?.cpuPercent ?? NaN,
    machineBusy: res.machineBusyPercent,
    seconds: res.seconds,
  };
}

function summarize(count, stream, subject, runs, opts) {
  const pick = (k) => median(runs.map((r) => r[k]));
  const recorder = isRecorder(subject);
  const line = {
    bench: 'recording',
    figure: 'usage',
    cameras: count,
    stream: streamName(stream),
    subject,
    ingest: INGEST[subject] ?? null,
    runs: runs.length,
    window_seconds: r1(pick('seconds')),
    cpu_percent_of_one_core: r2(pick('cpu')),
    cpu_percent_runs: runs.map((r) => r2(r.cpu)),
    node_cpu_percent: recorder ? r2(pick('nodeCpu')) : 0,
    ffmpeg_cpu_percent: r2(pick('ffmpegCpu')),
    other_cpu_percent: r2(pick('otherCpu')),
    node_rss_mib: recorder ? r1(pick('nodeRss')) : 0,
    node_pss_mib: recorder ? r1(pick('nodePss')) : 0,
    ffmpeg_rss_mib_total: r1(pick('ffmpegRss')),
    ffmpeg_pss_mib_total: r1(pick('ffmpegPss')),
    rss_mib_total: r1(pick('rssTotal')), // Σ of per-process RSS (peak): shared libraries counted once per process
    pss_mib_total: r1(pick('pssTotal')),
    rss_shared_once_mib_total: r1(pick('uniqueRssTotal')), // private pages + shared pages once: the ratio's measure
    ffmpeg_processes: Math.round(pick('ffmpegProcs')),
    other_processes: Math.round(pick('otherProcs')),
    written_kbps_per_camera: Math.round(pick('kbps')),
    cameras_below_half_rate: Math.max(...runs.map((r) => r.lowCameras)),
    segment_files: Math.round(pick('segmentFiles')),
    restarts: Math.max(...runs.map((r) => r.restarts)), // whole run, start-up included (baseline: ffmpegs that exited)
    restarts_in_window: Math.max(...runs.map((r) => r.restartsInWindow)),
    retried_runs: runs.reduce((a, r) => a + r.retries, 0), // runs repeated after a starved attempt (see StarvedError)
    fallbacks_to_ffmpeg: recorder ? Math.max(...runs.map((r) => r.fallbacks)) : null,
    camera_servers_cpu_percent: r1(pick('camerasCpu')),
    machine_busy_percent_of_all_cpus: r1(pick('machineBusy')),
  };
  if (subject === 'vigil-flags') {
    line.node_args = runs[0]?.nodeArgs;
    if (opts.recorderBin !== undefined) line.recorder_bin = opts.recorderBin;
  }
  return line;
}

/** Figure names per recorder subject and targets: CPU ratio ≤ target, memory (PSS) ratio ≤ target. */
const RATIO_FIGURES = {
  native: { cpu: 'cpu_ratio_native_to_baseline', cpuTarget: 0.3, mem: 'rss_ratio_native_to_baseline', memTarget: 0.2 },
  'vigil-ffmpeg': { cpu: 'cpu_ratio_vigil_ffmpeg_to_baseline', cpuTarget: 1.3, mem: 'rss_ratio_vigil_ffmpeg_to_baseline', memTarget: undefined },
  'vigil-flags': { cpu: 'cpu_ratio_vigil_flags_to_baseline', cpuTarget: 0.3, mem: 'rss_ratio_vigil_flags_to_baseline', memTarget: 0.2 },
};

/** The ratio lines of one recorder subject against the baseline of the same camera count (pairs: same repeat). */
function ratioFigures(count, subject, line, base, runs, baseRuns) {
  const spec = RATIO_FIGURES[subject];
  const cpuRatio = line.cpu_percent_of_one_core / base.cpu_percent_of_one_core;
  const memRatio = line.rss_shared_once_mib_total / base.rss_shared_once_mib_total;
  const cpu = {
    bench: 'recording', cameras: count, figure: spec.cpu, subject, ratio: r2(cpuRatio),
    pair_ratios: runs.map((v, i) => r2(v.cpu / baseRuns[i].cpu)),
    cpu_percent: line.cpu_percent_of_one_core, baseline_cpu_percent: base.cpu_percent_of_one_core,
    target: spec.cpuTarget, pass: cpuRatio <= spec.cpuTarget,
  };
  // The same measure on both sides, at the window's end: the resident memory of the subject's processes with pages they
  // share counted once (the baseline ffmpegs' libraries once, not once per ffmpeg), i.e. what it keeps resident on a
  // machine of its own. Beside it PSS (which also divides pages shared with unrelated processes, e.g. other node
  // processes on the machine, so it flatters the recorder) and the plain sum of RSS (libraries once per ffmpeg).
  const mem = {
    bench: 'recording', cameras: count, figure: spec.mem, subject, measure: 'rss_shared_once', ratio: r2(memRatio),
    pair_ratios: runs.map((v, i) => r2(v.uniqueRssTotal / baseRuns[i].uniqueRssTotal)),
    mib: line.rss_shared_once_mib_total, baseline_mib: base.rss_shared_once_mib_total,
    ratio_pss: r2(line.pss_mib_total / base.pss_mib_total), pss_mib: line.pss_mib_total, baseline_pss_mib: base.pss_mib_total,
    ratio_rss_sum: r2(line.rss_mib_total / base.rss_mib_total), rss_mib: line.rss_mib_total, baseline_rss_mib: base.rss_mib_total,
  };
  if (spec.memTarget !== undefined) Object.assign(mem, { target: spec.memTarget, pass: memRatio <= spec.memTarget });
  if (subject === 'vigil-flags') cpu.node_args = mem.node_args = line.node_args;
  return { cpu, mem, cpuRatio, memRatio };
}

function printTable(rows, setup) {
  const head = ['cams', 'stream', 'subject', 'CPU % (1 core) [runs]', 'node CPU %', 'ffmpeg CPU %', 'RSS MiB node / ffmpeg Σ', 'RSS shared once MiB', 'PSS MiB Σ', 'kbit/s/cam', 'low cams', 'restarts window (all)', 'retried runs', 'cam servers CPU %', 'machine busy %', 'CPU ÷ baseline', 'mem ÷ baseline: RSS shared once (PSS)'];
  const body = rows.map((r) => [
    String(r.cameras),
    r.stream,
    r.subject,
    r.cpu_percent_of_one_core.toFixed(1) + ` [${r.cpu_percent_runs.map((x) => x.toFixed(1)).join(', ')}]`,
    isRecorder(r.subject) ? r.node_cpu_percent.toFixed(1) : '-',
    r.ffmpeg_cpu_percent.toFixed(1),
    `${isRecorder(r.subject) ? r.node_rss_mib.toFixed(0) : '-'} / ${r.ffmpeg_rss_mib_total.toFixed(0)}`,
    r.rss_shared_once_mib_total.toFixed(0),
    r.pss_mib_total.toFixed(0),
    String(r.written_kbps_per_camera),
    String(r.cameras_below_half_rate),
    `${r.restarts_in_window} (${r.restarts})`,
    String(r.retried_runs),
    r.camera_servers_cpu_percent.toFixed(1),
    r.machine_busy_percent_of_all_cpus.toFixed(0),
    r.cpuRatio === undefined ? '' : `${r.cpuRatio.toFixed(2)}x`,
    r.memRatio === undefined ? '' : `${r.memRatio.toFixed(2)}x (${r.pssRatio.toFixed(2)}x)`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  const what = `recording: subjects ${setup.subjects.join(', ')}; cameras ${setup.cameras.join(', ')} ` +
    `(stream WxH@kbit/s, ${STREAM.fps} fps, GOP ${STREAM.gop}, ${setup.per_server} per GStreamer process; ` +
    `with B-frames: ${Object.entries(setup.bframe_cameras).map(([c, b]) => `${b} of ${c}`).join(', ')}); ` +
    `warm-up ${setup.warmup_seconds} s, window ${setup.window_seconds} s, ${setup.repeats} repeat(s), medians. ` +
    'CPU and memory: the subject\'s processes only (camera servers shown apart); RSS shared once and PSS at the window\'s end.';
  process.stderr.write(['', what, fmt(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(fmt), ''].join('\n') + '\n');
}

/** `count` cameras, `withB` of them looping the B-frame clip (their own servers); one { urls, pids, stop() } for all. */
async function startCameraMix({ count, withB, files, fps, perServer }) {
  const sets = [];
  try {
    if (count - withB > 0) sets.push(await startCameras({ count: count - withB, file: files.loop, fps, perServer }));
    if (withB > 0) sets.push(await startCameras({ count: withB, file: files.bframes.path, order: files.bframes.order, fps, perServer }));
  } catch (err) {
    await Promise.all(sets.map((c) => c.stop()));
    throw err;
  }
  return { urls: sets.flatMap((c) => c.urls), pids: sets.flatMap((c) => c.pids), stop: () => Promise.all(sets.map((c) => c.stop())) };
}

export async function run(opts, emit) {
  const chosen = chooseSubjects(opts);
  if (chosen.length === 0) {
    log(`none of the subjects ${opts.subjects.join(', ')} is one of this benchmark's (${subjects.join(', ')}): skipped`);
    return [];
  }
  if (opts.stream !== undefined) parseStream(opts.stream);
  if (!existsSync(SUPPORT) || !existsSync(join(ROOT, 'recorder', 'dist', 'src', 'main.js'))) {
    throw new Error('recorder/dist is missing: run `npm run build` first (npm run bench does)');
  }
  const { encodeLoopFile } = await import('@vigil/testing/rtsp-camera');
  const { freePort } = await import('@vigil/testing/net');
  const flags = splitArgs(opts.recorderNodeArgs);
  const setup = {
    bench: 'recording', figure: 'setup', subjects: chosen, cameras: opts.cameras,
    warmup_seconds: opts.warmup, window_seconds: opts.seconds, repeats: opts.repeats, per_server: opts.perServer,
    streams: Object.fromEntries(opts.cameras.map((c) => [c, streamName(streamFor(c, opts))])), fps: STREAM.fps, gop: STREAM.gop,
    bframe_cameras: Object.fromEntries(opts.cameras.map((c) => [c, Math.round(c * BFRAME_SHARE)])),
    segment_seconds: SEGMENT_SECONDS, ingest_read_tick_ms: 'recorder default', node_args: flags.length > 0 ? flags.join(' ') : undefined,
  };
  emit(setup);
  const tmp = await makeTempDir('vigil-bench-recording-');
  const rows = [];
  try {
    const loops = new Map(); // stream name → loop file
    for (const count of opts.cameras) {
      const stream = streamFor(count, opts);
      const name = streamName(stream);
      const withB = Math.round(count * BFRAME_SHARE);
      if (!loops.has(name)) {
        const loop = join(tmp, `loop-${name}.h264`);
        log(`encoding the loop files (${stream.width}x${stream.height} ${stream.fps} fps, GOP ${stream.gop}, ${stream.bitrateKbps} kbit/s; without and with B-frames)`);
        await encodeLoopFile(loop, stream);
        const bframes = await encodeBframeLoop(join(tmp, `loop-${name}-bframes.h264`), stream);
        loops.set(name, { loop, bframes });
      }
      const files = loops.get(name);
      log(`${count} camera(s) of ${name}, ${withB} with B-frames: starting GStreamer`);
      const cams = await startCameraMix({ count, withB, files, fps: stream.fps, perServer: opts.perServer });
      const runs = Object.fromEntries(chosen.map((s) => [s, []]));
      try {
        for (let rep = 0; rep < opts.repeats; rep++) {
          // Alternate the order (N V B, B V N, ...) so a drift in machine load does not favour one subject.
          const order = rep % 2 === 0 ? chosen : [...chosen].reverse();
          for (const subject of order) {
            let res;
            let retries = 0;
            for (;;) {
              const dir = join(tmp, `${subject}-${count}-${rep}${retries > 0 ? `-retry${retries}` : ''}`);
              await mkdir(dir, { recursive: true });
              log(`${count} camera(s): ${subject} run ${rep + 1}/${opts.repeats}${retries > 0 ? ` (retry ${retries})` : ''} (warm-up ${opts.warmup} s, window ${opts.seconds} s)`);
              const common = { count, kbps: stream.bitrateKbps, urls: cams.urls, cameraPids: cams.pids, dir, opts };
              try {
                res = subject === 'baseline'
                  ? await runBaseline(common)
                  : await runVigil({ ...common, freePort, ingest: INGEST[subject], nodeFlags: subject === 'vigil-flags' ? flags : [], ...(subject === 'vigil-flags' && opts.recorderBin !== undefined ? { recorderBin: opts.recorderBin } : {}) });
                if (!opts.keep) await removeTempDir(dir);
                break;
              } catch (err) {
                if (!(err instanceof StarvedError) || retries >= RETRIES) throw err;
                retries++;
                log(`  ${subject}: ${err.message.split('\n').slice(0, 3).join(' / ')}`);
                log(`  ${subject}: the machine looks starved (load ${loadavg().map((x) => x.toFixed(1)).join(' ')}); retry ${retries}/${RETRIES} once the 1-minute load is below ${CALM_LOAD} (at most ${CALM_WAIT_MS / 1000} s)`);
                if (!opts.keep) await removeTempDir(dir);
                const load = await waitForCalm();
                log(`  ${subject}: load ${load.toFixed(1)}, retrying`);
              }
            }
            const f = { ...figures(subject, res), retries, nodeArgs: subject === 'vigil-flags' ? flags.join(' ') : undefined };
            runs[subject].push(f);
            log(
              `  ${subject}: CPU ${f.cpu.toFixed(1)} % (node ${f.nodeCpu.toFixed(1)}, ffmpeg ${f.ffmpegCpu.toFixed(1)}), ` +
              `RSS node ${f.nodeRss.toFixed(0)} / ffmpeg ${f.ffmpegRss.toFixed(0)} MiB, shared once ${f.uniqueRssTotal.toFixed(0)} MiB, PSS ${f.pssTotal.toFixed(0)} MiB, ${Math.round(f.kbps)} kbit/s/camera, ` +
              `${f.segmentFiles} file(s); camera servers ${f.camerasCpu.toFixed(1)} %, machine ${f.machineBusy.toFixed(0)} % busy` +
              (f.lowCameras > 0 ? `, ${f.lowCameras} camera(s) below half rate` : '') +
              (f.restarts > 0 ? `, ${f.restarts} restart(s), ${f.restartsInWindow} in the window` : ''),
            );
          }
        }
      } finally {
        await cams.stop();
      }
      const lines = Object.fromEntries(chosen.map((s) => [s, summarize(count, stream, s, runs[s], opts)]));
      for (const s of chosen) emit(lines[s]);
      const base = lines.baseline;
      for (const s of chosen) {
        const row = { ...lines[s] };
        if (isRecorder(s) && base !== undefined) {
          const r = ratioFigures(count, s, lines[s], base, runs[s], runs.baseline);
          emit(r.cpu);
          emit(r.mem);
          Object.assign(row, { cpuRatio: r.cpuRatio, memRatio: r.memRatio, pssRatio: r.mem.ratio_pss });
        }
        if (isRecorder(s) && count >= 50) {
          const line = lines[s];
          emit({ bench: 'recording', cameras: count, subject: s, figure: 'node_rss_mib', value: line.node_rss_mib, target_below: 300, pass: line.node_rss_mib < 300 });
          emit({ bench: 'recording', cameras: count, subject: s, figure: 'vigil_cpu_percent_of_one_core', value: line.cpu_percent_of_one_core, target_below: 60, pass: line.cpu_percent_of_one_core < 60 });
        }
        rows.push(row);
      }
    }
  } finally {
    if (rows.length > 0) printTable(rows, setup);
    if (opts.keep) log(`kept ${tmp}`);
    else await removeTempDir(tmp);
  }
  return rows;
}
