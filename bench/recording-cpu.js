// Benchmark "recording": CPU and memory of the Vigil recorder — native RTSP ingest (subject "native") and one ffmpeg per
// camera ("vigil-ffmpeg") — against plain `ffmpeg -c copy -f segment` processes ("baseline") recording the same
// GStreamer cameras, alternated in one invocation. A recorder run counts only if it really recorded every camera the
// way it was asked to: a camera with nothing written in the window, or native ingest falling back to ffmpeg, fails it.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeBframeLoop } from './lib/bframe-loop.js';
import { startCameras } from './lib/cameras.js';
import { makeTempDir, removeTempDir, sleep } from './lib/lifecycle.js';
import { figures, printTable, ratioFigures, summarize } from './lib/recording-figures.js';
import { INGEST, isRecorder, runBaseline, runVigil, SEGMENT_SECONDS } from './lib/recording-subjects.js';
import { StarvedError } from './lib/recording-window.js';

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

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUPPORT = join(ROOT, 'testing', 'dist', 'src', 'rtsp-camera.js');

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

/** Node flags split on whitespace (no quoting: V8/Node flags need none). */
export function splitArgs(text) {
  return text === undefined ? [] : text.split(/\s+/).filter((s) => s !== '');
}

/** A run spoilt by a starved machine (StarvedError) is repeated this many times at most, once the machine has calmed down. */
const RETRIES = 2;
const CALM_LOAD = 3; // 1-minute load average to wait for before a retry (at most CALM_WAIT_MS)
const CALM_WAIT_MS = 180_000;

async function waitForCalm() {
  const deadline = Date.now() + CALM_WAIT_MS;
  while (loadavg()[0] >= CALM_LOAD && Date.now() < deadline) await sleep(5000);
  return loadavg()[0];
}

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

/**
 * One run of `subject` on the cameras `cams`, in a directory of its own: repeated (RETRIES times at most) when the machine
 * starved it, once the load has come down; any other failure ends the benchmark.
 */
async function runWithRetries({ subject, count, rep, stream, cams, tmp, opts, flags, freePort }) {
  let retries = 0;
  for (;;) {
    const dir = join(tmp, `${subject}-${count}-${rep}${retries > 0 ? `-retry${retries}` : ''}`);
    await mkdir(dir, { recursive: true });
    log(`${count} camera(s): ${subject} run ${rep + 1}/${opts.repeats}${retries > 0 ? ` (retry ${retries})` : ''} (warm-up ${opts.warmup} s, window ${opts.seconds} s)`);
    const common = { count, kbps: stream.bitrateKbps, urls: cams.urls, cameraPids: cams.pids, dir, opts };
    try {
      const res = subject === 'baseline'
        ? await runBaseline(common)
        : await runVigil({ ...common, freePort, ingest: INGEST[subject], nodeFlags: subject === 'vigil-flags' ? flags : [], ...(subject === 'vigil-flags' && opts.recorderBin !== undefined ? { recorderBin: opts.recorderBin } : {}) });
      if (!opts.keep) await removeTempDir(dir);
      return { res, retries };
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
            const { res, retries } = await runWithRetries({ subject, count, rep, stream, cams, tmp, opts, flags, freePort });
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
      const lines = Object.fromEntries(chosen.map((s) => [s, summarize(count, streamName(stream), s, runs[s], opts)]));
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
