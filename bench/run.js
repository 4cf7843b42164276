#!/usr/bin/env node
// Benchmark entry (`npm run bench`, or `node bench/run.js [name...] [options]`); see docs/benchmarks.md.
//
//   node bench/run.js                       every benchmark with its defaults
//   node bench/run.js recording --cameras 1,10,50,100 --seconds 30 --warmup 10 --repeats 2
//   node bench/run.js recording live --subjects native,baseline
//
// Options (environment variable in brackets):
//   --cameras LIST      camera counts, comma-separated          [VIGIL_BENCH_CAMERAS]   default 1,10,50,100
//   --subjects LIST     what is measured, comma-separated       [VIGIL_BENCH_SUBJECTS]
//                       recording: native, vigil-ffmpeg, baseline (default all three), vigil-flags;
//                       live: native, vigil-ffmpeg (default both), native-tls (native over https/wss). Each benchmark measures the ones it knows.
//   --stream WxH@KBPS   recording: the cameras' stream (25 fps, GOP 2 s)  [VIGIL_BENCH_STREAM]   default 1280x720@2000
//   --seconds N         measurement window per run, seconds     [VIGIL_BENCH_SECONDS]   default 30
//   --warmup N          seconds after every camera writes       [VIGIL_BENCH_WARMUP]    default 10
//   --repeats N         runs of every subject per count (median)        [VIGIL_BENCH_REPEATS]   default 2
//   --per-server N      camera mounts per GStreamer process     [VIGIL_BENCH_PER_SERVER] default 25
//   --cpu-prof DIR      run the recorder under node --cpu-prof, profiles into DIR
//   --recorder-node-args "ARGS"  also measure the recorder (native ingest) started as `node ARGS` (subject "vigil-flags")
//   --recorder-bin PATH  subject "vigil-flags" runs this recorder script (another checkout's, built) — an A/B of two builds
//   --keep              keep the temp dir (recordings and logs)
//   scale: VIGIL_BENCH_SCALE_NODES (200), VIGIL_BENCH_SCALE_CAMERAS (5000), VIGIL_BENCH_SCALE_STEADY (seconds, 300),
//          VIGIL_BENCH_SCALE_PROCESSES (child processes running the hollow recorders, 4)
//
// stdout: one JSON line per figure; stderr: progress and a summary table. Exit code 1 on error (not on a missed target).
import { resolve } from 'node:path';
import { keepTempDirs } from './lib/lifecycle.js';
import { machineFigure } from './lib/machine.js';

const BENCHMARKS = {
  recording: () => import('./recording-cpu.js'),
  live: () => import('./live-latency.js'),
  archive: () => import('./archive-listing.js'),
  jobs: () => import('./archive-jobs.js'),
  failover: () => import('./failover.js'),
  scale: () => import('./scale.js'),
  playback: () => import('./playback.js'),
};

function usage(message) {
  if (message !== undefined) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(`usage: node bench/run.js [${Object.keys(BENCHMARKS).join('|')} ...] [--cameras 1,10,50,100] [--subjects native,vigil-ffmpeg,baseline] [--stream 1280x720@2000] [--seconds 30] [--warmup 10] [--repeats 2] [--per-server 25] [--cpu-prof DIR] [--recorder-node-args "ARGS"] [--recorder-bin PATH] [--keep]\n`);
  process.exit(2);
}

function positiveInt(name, value) {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) usage(`${name} must be a positive integer, got "${value}"`);
  return n;
}

function parseArgs(argv, env) {
  const names = [];
  const opts = {};
  const fromEnv = {
    cameras: env.VIGIL_BENCH_CAMERAS,
    seconds: env.VIGIL_BENCH_SECONDS,
    warmup: env.VIGIL_BENCH_WARMUP,
    repeats: env.VIGIL_BENCH_REPEATS,
    perServer: env.VIGIL_BENCH_PER_SERVER,
    subjects: env.VIGIL_BENCH_SUBJECTS,
    stream: env.VIGIL_BENCH_STREAM,
  };
  const raw = { ...Object.fromEntries(Object.entries(fromEnv).filter(([, v]) => v !== undefined && v !== '')) };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let inline;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    const value = () => {
      if (inline !== undefined) return inline;
      const v = argv[++i];
      if (v === undefined) usage(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--cameras': raw.cameras = value(); break;
      case '--subjects': raw.subjects = value(); break;
      case '--stream': raw.stream = value(); break;
      case '--seconds': raw.seconds = value(); break;
      case '--warmup': raw.warmup = value(); break;
      case '--repeats': raw.repeats = value(); break;
      case '--per-server': raw.perServer = value(); break;
      case '--cpu-prof': opts.cpuProf = value(); break;
      case '--recorder-node-args': opts.recorderNodeArgs = value(); break;
      case '--recorder-bin': opts.recorderBin = resolve(value()); break;
      case '--keep': opts.keep = true; break;
      case '--help': case '-h': usage(); break;
      default:
        if (arg.startsWith('-')) usage(`unknown option ${arg}`);
        if (!(arg in BENCHMARKS)) usage(`unknown benchmark "${arg}"`);
        names.push(arg);
    }
  }
  if (raw.cameras !== undefined) opts.cameras = String(raw.cameras).split(',').filter((s) => s !== '').map((s) => positiveInt('--cameras', s));
  if (raw.seconds !== undefined) opts.seconds = positiveInt('--seconds', raw.seconds);
  if (raw.warmup !== undefined) opts.warmup = Number(raw.warmup) >= 0 ? Number(raw.warmup) : usage('--warmup must be >= 0');
  if (raw.repeats !== undefined) opts.repeats = positiveInt('--repeats', raw.repeats);
  if (raw.perServer !== undefined) opts.perServer = positiveInt('--per-server', raw.perServer);
  if (raw.stream !== undefined) {
    if (!/^\d+x\d+@\d+$/.test(String(raw.stream))) usage(`--stream must look like 1280x720@2000 (width x height @ kbit/s), got "${raw.stream}"`);
    opts.stream = String(raw.stream);
  }
  if (raw.subjects !== undefined) {
    opts.subjects = [...new Set(String(raw.subjects).split(',').map((s) => s.trim()).filter((s) => s !== ''))];
    if (opts.subjects.length === 0) usage('--subjects needs at least one name');
  }
  return { names: names.length > 0 ? names : Object.keys(BENCHMARKS), opts };
}

async function main() {
  if (process.platform !== 'linux') usage('the benchmarks read /proc: Linux only');
  const { names, opts } = parseArgs(process.argv.slice(2), process.env);
  const mods = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await BENCHMARKS[name]()])));
  if (opts.subjects !== undefined) {
    // A subject no selected benchmark knows is a typo, not something to skip silently.
    const known = new Set(Object.values(mods).flatMap((m) => m.subjects ?? []));
    const unknown = opts.subjects.filter((s) => !known.has(s));
    if (unknown.length > 0) usage(`unknown subject(s) ${unknown.join(', ')} (known to ${names.join(', ')}: ${[...known].join(', ') || 'none'})`);
  }
  if (opts.keep === true) keepTempDirs();
  const emit = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
  emit(machineFigure());
  for (const name of names) {
    const mod = mods[name];
    process.stderr.write(`bench: ${name}: ${mod.description}\n`);
    await mod.run({ ...mod.defaults, ...opts }, emit);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
