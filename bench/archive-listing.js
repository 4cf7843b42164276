// Benchmark "archive": the one-day segment listing (with `days`) of GET /api/archive/{camera}/segments, in walk mode
// (in-memory index built from empty files with the right names) and database mode (the same rows in `recordings`),
// for 1 camera × 365 days and 20 cameras × 30 days of one-minute segments; and the start-up walk of 1,389,600 files.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnArchiveRecorder } from './lib/archive-recorder.js';
import { makeTempDir, removeTempDir, sleep } from './lib/lifecycle.js';
import { loadAverageFigure } from './lib/machine.js';
import { envInt, percentile, r2 } from './lib/numbers.js';
import { readRssKiB } from './lib/proc.js';
import { DAY_S, makeFiles, PER_DAY } from './lib/synthetic-archive-files.js';
import { checkRollupEquivalence, loadDatabase } from './lib/synthetic-archive-rows.js';

export const description =
  'archive listing: one-day listing with days, p50/p99, walk and database modes, 1 camera × 365 days and 20 cameras × 30 days of 1-minute segments; start-up walk of 1.39 M files';

const DIST = fileURLToPath(new URL('../recorder/dist', import.meta.url));
const TARGET_P99_MS = 20;
const NODE_NAME = 'bench';

const SHAPES = [
  { name: '1cam_365d', cameras: ['cam-year'], days: 365, start: Date.UTC(2025, 0, 1) / 1000 },
  { name: '20cam_30d', cameras: Array.from({ length: 20 }, (_, i) => `cam${String(i + 1).padStart(2, '0')}`), days: 30, start: Date.UTC(2025, 10, 1) / 1000 },
];

export const defaults = {
  listings: envInt('VIGIL_BENCH_LISTINGS', 300), // measured listings per mode × shape
  listingWarmup: envInt('VIGIL_BENCH_LISTING_WARMUP', 20), // discarded first requests per series
  modes: (process.env.VIGIL_BENCH_ARCHIVE_MODES ?? 'walk,database').split(',').filter((s) => s !== ''),
  dbLoad: process.env.VIGIL_BENCH_DB_LOAD ?? 'bulk', // bulk: trigger off + migration 2's GROUP BY backfill; trigger: row trigger on
  seed: envInt('VIGIL_BENCH_SEED', 42),
  cpuProf: undefined, // directory: run the recorders under node --cpu-prof
  keep: false,
};

function log(msg) {
  process.stderr.write(`[archive] ${msg}\n`);
}

/** Deterministic PRNG (mulberry32): the same days are listed in every run. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stats(values) {
  return {
    n: values.length,
    p50_ms: r2(percentile(values, 50)),
    p99_ms: r2(percentile(values, 99)),
    max_ms: r2(Math.max(...values)),
    mean_ms: r2(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

/** A recorder on `recordPath` (with `databaseUrl`: database mode) named NODE_NAME, under node --cpu-prof with `cpuProf`. */
async function startRecorder({ dir, label, recordPath, databaseUrl, cpuProf }) {
  const nodeArgs = [];
  if (cpuProf !== undefined) {
    await mkdir(cpuProf, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', cpuProf, '--cpu-prof-name', `recorder-archive-${label}-${Date.now()}.cpuprofile`);
  }
  const config = { nodeName: NODE_NAME, ...(databaseUrl === undefined ? {} : { database: { url: databaseUrl } }) };
  return spawnArchiveRecorder({ dir, label, recordPath, config, nodeArgs });
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP measurements (undici, one keep-alive connection, sequential requests).

async function timedGet(undici, agent, url) {
  const t0 = performance.now();
  const res = await undici.request(url, { dispatcher: agent });
  const body = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`GET ${url} → ${res.statusCode}: ${body.slice(0, 500)}`);
  return { ms, body };
}

/** Polls /api/health/live every 100 ms until the walk has finished: the API answers while it runs. */
async function probeDuringWalk(undici, agent, rec) {
  const lat = [];
  while (rec.events.walk === undefined && lat.length < 100_000) {
    const t0 = performance.now();
    await timedGet(undici, agent, `${rec.base}/api/health/live`);
    // Only probes that completed before the walk ended count as "during the walk".
    if (rec.events.walk === undefined) lat.push(performance.now() - t0);
    await sleep(100);
  }
  return lat;
}

const TZ_OFFSETS = [-480, -300, 60, 120, 330, 540, 600];

/**
 * `warmup + n` listings of random whole days, each preceded by a GET /api/health/live on the same connection: the
 * health figures (the HTTP floor) come from the same moments as the listing figures, so a noisy machine shows in both.
 */
async function measureListings(undici, agent, base, shape, { n, warmup, random }) {
  const health = [];
  const all = [];
  const plain = [];
  const withTz = [];
  let first;
  let bytes = 0;
  let segments;
  for (let i = 0; i < warmup + n; i++) {
    const camera = shape.cameras[Math.floor(random() * shape.cameras.length)];
    const day = 1 + Math.floor(random() * (shape.days - 2)); // whole local day inside the archive
    const tz = i % 4 === 3 ? TZ_OFFSETS[Math.floor(random() * TZ_OFFSETS.length)] : undefined;
    const from = shape.start + day * DAY_S - (tz ?? 0) * 60; // local midnight on the viewer's clock
    const live = await timedGet(undici, agent, `${base}/api/health/live`);
    if (i >= warmup) health.push(live.ms);
    const url = `${base}/api/archive/${camera}/segments?from=${from}&to=${from + DAY_S}${tz === undefined ? '' : `&tz_offset_minutes=${tz}`}`;
    const { ms, body } = await timedGet(undici, agent, url);
    const out = JSON.parse(body);
    // Every window is one whole day inside the archive: 1440 segments; days = the archive's days (+1 when shifted).
    const wantDays = shape.days + (tz === undefined || tz % 1440 === 0 ? 0 : 1);
    if (out.archive.length !== PER_DAY || out.days.length !== wantDays) {
      throw new Error(`${url}: ${out.archive.length} segments and ${out.days.length} days, expected ${PER_DAY} and ${wantDays}`);
    }
    if (i === 0) first = ms;
    if (i < warmup) continue;
    all.push(ms);
    (tz === undefined ? plain : withTz).push(ms);
    bytes = body.length;
    segments = out.archive.length;
  }
  return { health: stats(health), ...stats(all), first_ms: r2(first), p50_node_clock_ms: r2(percentile(plain, 50)), p50_tz_offset_ms: r2(percentile(withTz, 50)), with_tz_offset: withTz.length, segments, body_bytes: bytes };
}

// ---------------------------------------------------------------------------------------------------------------

export async function run(opts, emit) {
  const undici = await import('undici');
  const { segmentRelativePath } = await import(join(DIST, 'src', 'recording', 'segment-name.js'));
  const random = rng(opts.seed);
  const tmp = await makeTempDir('vigil-bench-archive-');
  const agentOptions = { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 };
  const listingOpts = { n: opts.listings, warmup: opts.listingWarmup, random };
  const summary = [];
  const running = new Set();
  let pgServer;
  const common = { bench: 'archive' };

  const withRecorder = async (args, body) => {
    const rec = await startRecorder({ dir: tmp, cpuProf: opts.cpuProf, ...args });
    running.add(rec);
    const agent = new undici.Agent(agentOptions);
    try {
      return await body(rec, agent);
    } finally {
      await agent.close().catch(() => undefined);
      await rec.stop();
      running.delete(rec);
    }
  };

  /** One recorder: walk figures (walk mode), health baseline and the listings of `shapes`. */
  const session = (mode, label, recordPath, databaseUrl, shapes, files) =>
    withRecorder({ label, recordPath, databaseUrl }, async (rec, agent) => {
      const listening = await rec.waitFor('listening', 60_000);
      const probes = mode === 'walk' ? await probeDuringWalk(undici, agent, rec) : [];
      const walk = await rec.waitFor('walk', 600_000);
      if (mode === 'walk') {
        const fig = {
          ...common, mode, archive: label, figure: 'startup_walk', files, segments: walk.segments, cameras: walk.cameras,
          walk_ms_logged: walk.ms, spawn_to_walk_finished_ms: Math.round(walk.at - rec.spawnedAt), spawn_to_listening_ms: Math.round(listening.at - rec.spawnedAt),
          listening: listening.order, files_per_s: Math.round(files / (walk.ms / 1000)), rss_mib_after_walk: Math.round(readRssKiB(rec.child.pid) / 1024),
          health_probes_during_walk: probes.length, health_during_walk_p50_ms: r2(percentile(probes, 50)), health_during_walk_max_ms: probes.length > 0 ? r2(Math.max(...probes)) : null,
        };
        if (walk.segments !== files) throw new Error(`walk of ${label} indexed ${walk.segments} segments, expected ${files}`);
        emit(fig);
        summary.push(`walk ${label}: ${files} files, walk ${walk.ms} ms (spawn → finished ${fig.spawn_to_walk_finished_ms} ms), RSS ${fig.rss_mib_after_walk} MiB, health during walk p50 ${fig.health_during_walk_p50_ms} ms max ${fig.health_during_walk_max_ms} ms (${probes.length} probes)`);
      }
      for (const shape of shapes) {
        const { health, ...res } = await measureListings(undici, agent, rec.base, shape, listingOpts);
        emit({ ...common, mode, archive: label, shape: shape.name, figure: 'health_live_latency', ...health });
        emit({ ...common, mode, archive: label, shape: shape.name, figure: 'listing_one_day_latency', ...res, target_p99_below_ms: TARGET_P99_MS, pass: res.p99_ms < TARGET_P99_MS });
        summary.push(
          `${mode} ${label} ${shape.name}: listing p50 ${res.p50_ms} ms p99 ${res.p99_ms} ms max ${res.max_ms} ms (first ${res.first_ms} ms, ${res.segments} segments, ${Math.round(res.body_bytes / 1024)} KiB) ${res.p99_ms < TARGET_P99_MS ? 'PASS' : 'MISS'}; ` +
            `health/live meanwhile p50 ${health.p50_ms} ms p99 ${health.p99_ms} ms`,
        );
      }
    });

  // The machine may be shared: the load average before and after says how quiet it was.
  emit(loadAverageFigure(common.bench, 'start'));
  try {
    if (opts.modes.includes('walk')) {
      const dirs = {};
      for (const shape of SHAPES) {
        dirs[shape.name] = join(tmp, `rec-${shape.name}`);
        const t0 = performance.now();
        const files = await makeFiles(dirs[shape.name], shape);
        const first = join(dirs[shape.name], segmentRelativePath(shape.cameras[0], new Date(shape.start * 1000), 1));
        if (!existsSync(first) || statSync(first).mtimeMs !== (shape.start + 60) * 1000) throw new Error(`synthetic file ${first} missing or with a wrong mtime`);
        log(`${shape.name}: created ${files} empty files in ${Math.round(performance.now() - t0)} ms`);
        emit({ ...common, mode: 'walk', shape: shape.name, figure: 'synthetic_files_created', files, ms: Math.round(performance.now() - t0) });
        shape.files = files;
      }
      for (const shape of SHAPES) await session('walk', shape.name, dirs[shape.name], undefined, [shape], shape.files);
      // Both archives in one record_path (directory renames: no copying): 21 cameras, 1,389,600 files.
      const all = join(tmp, 'rec-all');
      await mkdir(all);
      for (const shape of SHAPES) for (const name of await readdir(dirs[shape.name])) await rename(join(dirs[shape.name], name), join(all, name));
      const total = SHAPES.reduce((a, s) => a + s.files, 0);
      await session('walk', 'all_21cam', all, undefined, SHAPES, total);
      const t0 = performance.now();
      execFileSync('rm', ['-rf', all, ...Object.values(dirs)]);
      log(`removed the synthetic files in ${Math.round(performance.now() - t0)} ms`);
    }

    if (opts.modes.includes('database')) {
      const { startTestPostgres } = await import('@vigil/testing/postgres');
      const { MIGRATIONS, migrate } = await import(join(DIST, 'src', 'db', 'migrations.js'));
      const pg = (await import('pg')).default;
      const t0 = performance.now();
      pgServer = await startTestPostgres();
      log(`PostgreSQL 15 up in ${Math.round(performance.now() - t0)} ms`);
      const check = await checkRollupEquivalence({ pgServer, pg, MIGRATIONS, migrate, nodeName: NODE_NAME });
      emit({ ...common, mode: 'database', figure: 'rollup_trigger_vs_backfill_check', ...check, pass: check.mismatches === 0 && check.trigger_rows === check.backfill_rows });
      if (check.mismatches !== 0) throw new Error(`recording_hours from the trigger and from migration 2's backfill differ: ${JSON.stringify(check)}`);
      const empty = join(tmp, 'rec-empty');
      await mkdir(empty);
      for (const shape of SHAPES) {
        const db = await loadDatabase({ pgServer, pg, MIGRATIONS, migrate, nodeName: NODE_NAME, shape, how: opts.dbLoad });
        const wantRows = shape.cameras.length * shape.days * PER_DAY;
        const wantFirst = segmentRelativePath(shape.cameras[0], new Date(shape.start * 1000), 1);
        if (db.rows !== wantRows || db.hours !== shape.cameras.length * shape.days * 24 || db.first_file !== wantFirst) {
          throw new Error(`database ${shape.name}: ${db.rows} rows, ${db.hours} hour rows, first file ${db.first_file}; expected ${wantRows}, ${shape.cameras.length * shape.days * 24}, ${wantFirst}`);
        }
        log(`${shape.name}: ${db.rows} rows (${opts.dbLoad}) in ${Math.round(db.loadMs)} ms, VACUUM ANALYZE ${Math.round(db.vacuumMs)} ms, table+indexes ${Math.round(Number(db.bytes) / 2 ** 20)} MiB`);
        emit({ ...common, mode: 'database', shape: shape.name, figure: 'rows_loaded', rows: db.rows, hour_rows: db.hours, load: opts.dbLoad, load_ms: Math.round(db.loadMs), vacuum_analyze_ms: Math.round(db.vacuumMs), relation_mib: Math.round(Number(db.bytes) / 2 ** 20) });
        await session('database', shape.name, empty, db.url, [shape], 0);
      }
    }
  } finally {
    for (const rec of running) await rec.stop().catch(() => undefined);
    if (pgServer !== undefined) await pgServer.destroy().catch((err) => log(`stopping PostgreSQL: ${err}`));
    if (opts.keep) log(`kept ${tmp}`);
    else {
      execFileSync('rm', ['-rf', tmp]);
      await removeTempDir(tmp);
    }
  }
  emit(loadAverageFigure(common.bench, 'end'));
  process.stderr.write(`\narchive listing (target p99 < ${TARGET_P99_MS} ms):\n${summary.map((s) => `  ${s}`).join('\n')}\n\n`);
}
