// Benchmark "recording": CPU and memory of the Vigil recorder (Node + its ffmpegs) against plain
// `ffmpeg -c copy -f segment` processes recording the same GStreamer cameras, alternated in one invocation.
import { existsSync, openSync, closeSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCameras } from './lib/cameras.js';
import { makeTempDir, removeTempDir, sleep, spawnTracked, stopAll, stopTracked } from './lib/lifecycle.js';
import { descendants, WindowSampler } from './lib/proc.js';

export const description =
  'recorder (Node + ffmpeg children) vs plain `ffmpeg -c copy -f segment`: CPU and RSS for 1, 10, 50 GStreamer cameras (720p, 2 Mbps H.264)';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RECORDER_BIN = join(ROOT, 'recorder', 'bin', 'vigil-recorder.js');
const SUPPORT = join(ROOT, 'testing', 'dist', 'src', 'rtsp-camera.js');
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';

/** The camera stream: what a typical 720p camera sends. */
const STREAM = { width: 1280, height: 720, fps: 25, gop: 50, bitrateKbps: 2000, seconds: 20 };
const SEGMENT_SECONDS = 60;

export const defaults = {
  cameras: [1, 10, 50],
  seconds: 30, // measurement window
  warmup: 10, // after every camera has started writing
  repeats: 2, // vigil/baseline pairs per camera count; medians are reported
  perServer: 25, // mount points per GStreamer server process
  cpuProf: undefined, // directory: run the recorder under `node --cpu-prof` (its numbers are then not comparable)
  recorderNodeArgs: undefined, // string: also measure a third subject, "vigil-flags", the recorder under `node ARGS`
  keep: false, // keep the temp dir (recordings, logs)
};

function log(msg) {
  process.stderr.write(`[recording] ${msg}\n`);
}

/** Bytes on disk per camera key under `dir`; `keyOf(relativePath)` names the camera of a file (or undefined). */
function bytesByCamera(dir, keyOf) {
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
    out.set(key, (out.get(key) ?? 0) + st.size);
  }
  return out;
}

/** Node flags split on whitespace (no quoting: V8/Node flags need none). */
export function splitArgs(text) {
  return text === undefined ? [] : text.split(/\s+/).filter((s) => s !== '');
}

const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

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
  throw new Error(`${what}: only ${writing} of ${count} cameras wrote data within ${timeoutMs / 1000} s`);
}

function tail(file, bytes = 3000) {
  try {
    return readFileSync(file, 'utf8').slice(-bytes);
  } catch {
    return '';
  }
}

/** Measures one subject that is already running: warm-up, then the window. */
async function measure({ count, dir, keyOf, list, warmup, seconds }) {
  await sleep(warmup * 1000);
  const before = bytesByCamera(dir, keyOf);
  const sampler = new WindowSampler(list).start();
  await sleep(seconds * 1000);
  const result = sampler.stop();
  const after = bytesByCamera(dir, keyOf);
  // Files can be closed/renamed but not shrink; a camera that stopped writing shows as a low rate.
  const written = sum(after) - sum(before);
  const lowCameras = [...after.keys()].filter((k) => (after.get(k) - (before.get(k) ?? 0)) * 8 / 1000 / result.seconds < STREAM.bitrateKbps * 0.5).length
    + Math.max(0, count - after.size);
  return { ...result, writtenKbpsPerCamera: (written * 8) / 1000 / result.seconds / count, lowCameras };
}

async function runVigil({ count, urls, dir, opts, freePort, nodeFlags = [] }) {
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
  const child = spawnTracked(process.execPath, [...nodeArgs, RECORDER_BIN, '--config', configFile, '--conf-dir', confDir], {
    stdio: ['ignore', logFd, logFd],
    name: 'vigil-recorder',
  });
  closeSync(logFd);
  try {
    const keyOf = (rel) => rel.split(sep)[0];
    const alive = () => (child.exitCode !== null || child.signalCode !== null ? `recorder exited early:\n${tail(logFile)}` : undefined);
    await waitAllWriting(recDir, keyOf, count, 30_000 + count * 500, alive, 'vigil').catch((err) => {
      throw new Error(`${err.message}\nrecorder log:\n${tail(logFile)}`);
    });
    const list = () => {
      const out = [{ pid: child.pid, role: 'node' }];
      for (const p of descendants(child.pid)) out.push({ pid: p.pid, role: p.comm === 'ffmpeg' ? 'ffmpeg' : 'other' });
      return out;
    };
    const m = await measure({ count, dir: recDir, keyOf, list, warmup: opts.warmup, seconds: opts.seconds });
    const restarts = (readFileSync(logFile, 'utf8').match(/restarting ingest|ingest ended; restarting/g) ?? []).length;
    return { ...m, restarts };
  } finally {
    await stopTracked(child, { graceMs: 15_000 });
  }
}

async function runBaseline({ count, urls, dir, opts }) {
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
    await waitAllWriting(outDir, keyOf, count, 30_000 + count * 500, alive, 'baseline');
    const list = () => children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => ({ pid: c.pid, role: 'ffmpeg' }));
    const m = await measure({ count, dir: outDir, keyOf, list, warmup: opts.warmup, seconds: opts.seconds });
    return { ...m, restarts: children.filter((c) => c.exitCode !== null || c.signalCode !== null).length };
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

/** One run's figures, flattened. */
function figures(subject, res) {
  const node = res.roles.node ?? { cpuPercent: 0, rssPeakMiB: 0, rssMeanMiB: 0, pssMiB: 0, processes: 0 };
  const ff = res.roles.ffmpeg ?? { cpuPercent: 0, rssPeakMiB: 0, rssMeanMiB: 0, pssMiB: 0, processes: 0 };
  const other = res.roles.other?.cpuPercent ?? 0;
  return {
    subject,
    cpu: node.cpuPercent + ff.cpuPercent + other,
    nodeCpu: node.cpuPercent,
    ffmpegCpu: ff.cpuPercent,
    nodeRss: node.rssPeakMiB,
    ffmpegRss: ff.rssPeakMiB,
    ffmpegPss: ff.pssMiB,
    ffmpegProcs: ff.processes,
    kbps: res.writtenKbpsPerCamera,
    lowCameras: res.lowCameras,
    restarts: res.restarts,
    seconds: res.seconds,
  };
}

function summarize(count, subject, runs) {
  const pick = (k) => median(runs.map((r) => r[k]));
  const line = {
    bench: 'recording',
    cameras: count,
    subject,
    runs: runs.length,
    window_seconds: r1(pick('seconds')),
    cpu_percent_of_one_core: r2(pick('cpu')),
    cpu_percent_runs: runs.map((r) => r2(r.cpu)),
    node_cpu_percent: subject === 'baseline' ? 0 : r2(pick('nodeCpu')),
    ffmpeg_cpu_percent: r2(pick('ffmpegCpu')),
    node_rss_mib: subject === 'baseline' ? 0 : r1(pick('nodeRss')),
    ffmpeg_rss_mib_total: r1(pick('ffmpegRss')),
    ffmpeg_pss_mib_total: r1(pick('ffmpegPss')),
    ffmpeg_processes: Math.round(pick('ffmpegProcs')),
    written_kbps_per_camera: Math.round(pick('kbps')),
    cameras_below_half_rate: Math.max(...runs.map((r) => r.lowCameras)),
    restarts: Math.max(...runs.map((r) => r.restarts)),
  };
  if (subject === 'vigil-flags') line.node_args = runs[0]?.nodeArgs;
  return line;
}

function printTable(rows) {
  const head = ['cams', 'subject', 'CPU % (1 core)', 'node CPU %', 'ffmpeg CPU %', 'node RSS MiB', 'ffmpeg RSS MiB (PSS)', 'kbit/s/cam', 'ratio'];
  const body = rows.map((r) => [
    String(r.cameras),
    r.subject,
    r.cpu_percent_of_one_core.toFixed(1) + ` [${r.cpu_percent_runs.map((x) => x.toFixed(1)).join(', ')}]`,
    r.subject === 'baseline' ? '-' : r.node_cpu_percent.toFixed(1),
    r.ffmpeg_cpu_percent.toFixed(1),
    r.subject === 'baseline' ? '-' : r.node_rss_mib.toFixed(0),
    `${r.ffmpeg_rss_mib_total.toFixed(0)} (${r.ffmpeg_pss_mib_total.toFixed(0)})`,
    String(r.written_kbps_per_camera),
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  process.stderr.write(['', fmt(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(fmt), ''].join('\n') + '\n');
}

export async function run(opts, emit) {
  if (!existsSync(SUPPORT) || !existsSync(join(ROOT, 'recorder', 'dist', 'src', 'main.js'))) {
    throw new Error('recorder/dist is missing: run `npm run build` first (npm run bench does)');
  }
  const { encodeLoopFile } = await import('@vigil/testing/rtsp-camera');
  const { freePort } = await import('@vigil/testing/net');
  const tmp = await makeTempDir('vigil-bench-recording-');
  const rows = [];
  try {
    const loop = join(tmp, 'loop-720p-2mbps.h264');
    log(`encoding the loop file (${STREAM.width}x${STREAM.height} ${STREAM.fps} fps, GOP ${STREAM.gop}, ${STREAM.bitrateKbps} kbit/s)`);
    await encodeLoopFile(loop, STREAM);

    for (const count of opts.cameras) {
      log(`${count} camera(s): starting GStreamer (${Math.ceil(count / opts.perServer)} server process(es))`);
      const cams = await startCameras({ count, file: loop, fps: STREAM.fps, perServer: opts.perServer });
      const flags = splitArgs(opts.recorderNodeArgs);
      const subjects = flags.length > 0 ? ['vigil', 'baseline', 'vigil-flags'] : ['vigil', 'baseline'];
      const runs = Object.fromEntries(subjects.map((s) => [s, []]));
      try {
        for (let rep = 0; rep < opts.repeats; rep++) {
          // Alternate the order (V B, B V, ...) so a drift in machine load does not favour one subject.
          const order = rep % 2 === 0 ? subjects : [...subjects].reverse();
          for (const subject of order) {
            const dir = join(tmp, `${subject}-${count}-${rep}`);
            await mkdir(dir, { recursive: true });
            log(`${count} camera(s): ${subject} run ${rep + 1}/${opts.repeats} (warm-up ${opts.warmup} s, window ${opts.seconds} s)`);
            const res = subject === 'baseline'
              ? await runBaseline({ count, urls: cams.urls, dir, opts })
              : await runVigil({ count, urls: cams.urls, dir, opts, freePort, nodeFlags: subject === 'vigil-flags' ? flags : [] });
            const f = { ...figures(subject, res), nodeArgs: subject === 'vigil-flags' ? flags.join(' ') : undefined };
            runs[subject].push(f);
            log(
              `  ${subject}: CPU ${f.cpu.toFixed(1)} % (node ${f.nodeCpu.toFixed(1)}, ffmpeg ${f.ffmpegCpu.toFixed(1)}), ` +
              `node RSS ${f.nodeRss.toFixed(0)} MiB, ffmpeg RSS ${f.ffmpegRss.toFixed(0)} MiB, ${Math.round(f.kbps)} kbit/s/camera` +
              (f.lowCameras > 0 ? `, ${f.lowCameras} camera(s) below half rate` : '') +
              (f.restarts > 0 ? `, ${f.restarts} restart(s)` : ''),
            );
            if (!opts.keep) await removeTempDir(dir);
          }
        }
      } finally {
        await cams.stop();
      }
      const vigil = summarize(count, 'vigil', runs.vigil);
      const baseline = summarize(count, 'baseline', runs.baseline);
      const ratio = vigil.cpu_percent_of_one_core / baseline.cpu_percent_of_one_core;
      const pairRatios = runs.vigil.map((v, i) => r2(v.cpu / runs.baseline[i].cpu));
      emit(vigil);
      emit(baseline);
      emit({ bench: 'recording', cameras: count, figure: 'cpu_ratio_vigil_to_baseline', ratio: r2(ratio), pair_ratios: pairRatios, target: 1.3, pass: ratio <= 1.3 });
      if (count >= 50) {
        emit({ bench: 'recording', cameras: count, figure: 'node_rss_mib', value: vigil.node_rss_mib, target_below: 300, pass: vigil.node_rss_mib < 300 });
        emit({ bench: 'recording', cameras: count, figure: 'vigil_cpu_percent_of_one_core', value: vigil.cpu_percent_of_one_core, target_below: 60, pass: vigil.cpu_percent_of_one_core < 60 });
      }
      rows.push({ ...vigil, ratio }, baseline);
      if (runs['vigil-flags'] !== undefined) {
        const tuned = summarize(count, 'vigil-flags', runs['vigil-flags']);
        const tunedRatio = tuned.cpu_percent_of_one_core / baseline.cpu_percent_of_one_core;
        emit(tuned);
        emit({ bench: 'recording', cameras: count, figure: 'cpu_ratio_vigil_flags_to_baseline', node_args: tuned.node_args, ratio: r2(tunedRatio), pair_ratios: runs['vigil-flags'].map((v, i) => r2(v.cpu / runs.baseline[i].cpu)), target: 1.3, pass: tunedRatio <= 1.3 });
        rows.push({ ...tuned, ratio: tunedRatio });
      }
    }
  } finally {
    if (opts.keep) log(`kept ${tmp}`);
    else await removeTempDir(tmp);
  }
  printTable(rows);
  return rows;
}
