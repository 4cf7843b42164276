// Benchmark "live": recorder CPU per live WebSocket viewer (1, 10, 50 ws clients in a separate process) and
// camera-to-screen latency p50/p95 and the first picture's delay read from a time-stamped camera in a headless Chromium
// tile meanwhile, for each ingest path: "native" (RTSP read in the recorder, per-frame fragments) and "vigil-ffmpeg"
// (one ffmpeg, 200 ms fragments); "native-tls" is native with the API over TLS (wss:// viewers, an https page trusting a
// test CA): what encryption costs. These targets are measured here, not asserted by the test suite.
import { once } from 'node:events';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir, sleep, spawnTracked, stopTracked } from './lib/lifecycle.js';
import { descendants, WindowSampler } from './lib/proc.js';
import { freePort } from '@vigil/testing/net';
import { percentile } from './lib/numbers.js';

export const description =
  'live view, native ingest and ffmpeg ingest: recorder CPU per WebSocket viewer (1, 10, 50) and stamped camera-to-Chromium latency p50/p95 (720p, 2 Mbps, GOP 2 s)';

/** What can be measured: `--subjects` picks among these. */
export const subjects = ['native', 'vigil-ffmpeg', 'native-tls'];
const DEFAULT_SUBJECTS = ['native', 'vigil-ffmpeg'];
const INGEST = { native: 'native', 'vigil-ffmpeg': 'ffmpeg', 'native-tls': 'native' };
/** Latency p95 targets: native (per-frame fragments) 250 ms; ffmpeg (200 ms fragments) the architecture's 1 s. */
const P95_TARGET_MS = { native: 250, 'vigil-ffmpeg': 1000, 'native-tls': 250 };
let installStampReader;
const r1 = (x) => Math.round(x * 10) / 10;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const RECORDER_BIN = join(ROOT, 'recorder', 'bin', 'vigil-recorder.js');
const STREAM = { width: 1280, height: 720, fps: 25, gop: 50, bitrateKbps: 2000 };

export const defaults = {
  viewers: (process.env.VIGIL_BENCH_VIEWERS ?? '1,10,50').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0),
  seconds: 30,
  warmup: 10,
  subjects: undefined, // default: native, vigil-ffmpeg
  keep: false,
};

function log(msg) {
  process.stderr.write(`[live] ${msg}\n`);
}

/**
 * Child mode: `node live-latency.js --ws-viewers N URL [CA_FILE]` holds N sockets open, reading everything, until stdin
 * closes; with CA_FILE (wss://) the server's certificate is checked against it.
 */
async function runViewers(count, url, caFile) {
  const { WebSocket } = await import('ws');
  const ca = caFile === undefined ? undefined : readFileSync(caFile, 'utf8');
  const stats = { opened: 0, messages: 0, bytes: 0, closed: 0 };
  const sockets = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url, ca === undefined ? {} : { ca });
    ws.on('open', () => stats.opened++);
    ws.on('message', (data) => {
      stats.messages++;
      stats.bytes += data.length;
    });
    ws.on('close', () => stats.closed++);
    ws.on('error', () => undefined);
    sockets.push(ws);
  }
  process.stdin.resume();
  await once(process.stdin, 'end');
  for (const ws of sockets) ws.terminate();
  process.stdout.write(`${JSON.stringify(stats)}\n`);
}

async function startViewers(count, url, caFile) {
  const child = spawnTracked(process.execPath, [SELF, '--ws-viewers', String(count), url, ...(caFile === undefined ? [] : [caFile])], { stdio: ['pipe', 'pipe', 'inherit'], name: 'viewers' });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return {
    async stop() {
      child.stdin.end();
      await child.exitedPromise;
      return JSON.parse(out.trim() || '{}');
    },
  };
}

/** Whether --subjects names none of ours (then the benchmark is skipped), else the subjects to measure, in order. */
function chooseSubjects(opts) {
  if (opts.subjects === undefined) return [...DEFAULT_SUBJECTS];
  return opts.subjects.filter((s) => subjects.includes(s));
}

/** GET /api/cameras of the recorder: the camera's entry, or undefined. */
async function cameraEntry(base) {
  const list = await globalThis.fetch(`${base}/api/cameras`).then((r) => r.json(), () => []);
  return Array.isArray(list) ? list.find((c) => c.id === 'cam') : undefined;
}

/** The recorder reads the camera the way the subject says (API field `ingest`, no fallback in its log), else throws. */
function checkIngest(subject, entry, logFile) {
  const want = INGEST[subject];
  const fallbacks = readLog(logFile).split('\n').filter((l) => l.includes('falling back to ffmpeg'));
  if (fallbacks.length > 0) throw new Error(`live ${subject}: the recorder fell back to ffmpeg, not a valid measurement: ${fallbacks[0].slice(0, 400)}`);
  if (entry === undefined) throw new Error(`live ${subject}: the camera is missing from /api/cameras`);
  if (!('ingest' in entry)) log(`${subject}: /api/cameras has no "ingest" field: the ingest path is not checked`);
  else if (entry.ingest !== want) throw new Error(`live ${subject}: /api/cameras says ingest ${JSON.stringify(entry.ingest)}, expected "${want}" (reason: ${entry.ingest_fallback_reason ?? 'none'}); not a valid measurement`);
}

function readLog(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** One recorder (ingest of `subject`) on the camera: idle CPU, then per viewer count CPU, latency and first picture. */
async function runSubject({ subject, opts, emit, camera, browser, tls }) {
  const dir = await makeTempDir(`vigil-bench-live-${subject}-`);
  const secure = subject === 'native-tls';
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  mkdirSync(join(dir, 'recordings')); // the recorder never creates record_path
  writeFileSync(configFile, [
    `listen: 127.0.0.1:${port}`,
    `record_path: ${join(dir, 'recordings')}`,
    `work_dir: ${join(dir, 'work')}`,
    'log_level: warn',
    'auth: { disabled: true }',
    `ingest: ${INGEST[subject]}`,
    ...(secure ? [`tls: { cert_file: ${tls.server.certFile}, key_file: ${tls.server.keyFile} }`] : []),
    'cameras:',
    `  - { id: cam, source: "${camera.url}" }`,
    '',
  ].join('\n'));
  const logFile = join(dir, 'recorder.log');
  const logFd = openSync(logFile, 'w');
  const recorder = spawnTracked(process.execPath, [RECORDER_BIN, '--config', configFile, '--conf-dir', join(dir, 'conf.d')], { stdio: ['ignore', logFd, 'inherit'], name: 'recorder' });
  closeSync(logFd);
  const base = `${secure ? 'https' : 'http'}://127.0.0.1:${port}`;
  const tag = { bench: 'live', subject, ingest: INGEST[subject] };
  const target = P95_TARGET_MS[subject];
  try {
    for (let i = 0; ; i++) {
      const entry = await cameraEntry(base);
      if (entry?.state === 'recording') break;
      if (recorder.exitCode !== null || recorder.signalCode !== null) throw new Error(`live ${subject}: the recorder exited:\n${readLog(logFile).slice(-3000)}`);
      if (i > 60) throw new Error(`live ${subject}: the camera did not start streaming:\n${readLog(logFile).slice(-3000)}`);
      await sleep(500);
    }
    checkIngest(subject, await cameraEntry(base), logFile);
    const list = () => [{ pid: recorder.pid, role: 'node' }, ...descendants(recorder.pid).map((p) => ({ pid: p.pid, role: 'ffmpeg' }))];
    const measure = async (label) => {
      const sampler = new WindowSampler(list).start();
      await sleep(opts.seconds * 1000);
      const { roles } = sampler.stop();
      const node = roles.node?.cpuPercent ?? 0;
      const ffmpeg = roles.ffmpeg?.cpuPercent ?? 0;
      log(`${subject}, ${label}: node ${node.toFixed(1)} %, ffmpeg ${ffmpeg.toFixed(1)} %`);
      return { node, ffmpeg };
    };
    await sleep(opts.warmup * 1000);
    const idle = await measure('no viewers');
    emit({ ...tag, viewers: 0, figure: 'recorder_cpu_percent', value: r1(idle.node), ffmpeg_cpu_percent: r1(idle.ffmpeg), total_cpu_percent: r1(idle.node + idle.ffmpeg) });

    for (const count of opts.viewers) {
      const viewers = await startViewers(count, `${secure ? 'wss' : 'ws'}://127.0.0.1:${port}/websocket/cam`, secure ? tls.caFile : undefined);
      const page = await browser.newPage();
      await page.goto(base);
      await page.waitForSelector('video[data-camera="cam"]');
      await sleep(opts.warmup * 1000);
      await page.evaluate(installStampReader, 'cam');
      const cpu = await measure(`${count} ws viewers + 1 page`);
      const latencies = await page.evaluate(() => globalThis.__stampLatencies.cam);
      const tile = await page.evaluate(() => globalThis.vigilLive.stats().cam);
      await page.close();
      const got = await viewers.stop();
      const perViewer = (cpu.node - idle.node) / (count + 1);
      emit({ ...tag, viewers: count, figure: 'recorder_cpu_percent', value: r1(cpu.node), ffmpeg_cpu_percent: r1(cpu.ffmpeg), total_cpu_percent: r1(cpu.node + cpu.ffmpeg), per_viewer: Math.round(perViewer * 100) / 100, ws_clients: got });
      const p95 = percentile(latencies, 95);
      emit({
        ...tag, viewers: count, figure: 'latency_ms', samples: latencies.length,
        p50: percentile(latencies, 50), p95, max: latencies.length ? Math.max(...latencies) : null,
        stalls: tile.stalls, reconnects: tile.connections - 1, target_p95_at_most: target, pass: p95 !== null && p95 <= target,
      });
      // First picture after the socket opened: the page's own measure (target < 1 s, architecture section 8).
      const firstFrameMs = tile.firstFrameMs === undefined ? null : Math.round(tile.firstFrameMs);
      emit({ ...tag, viewers: count, figure: 'first_frame_ms', value: firstFrameMs, target_below: 1000, pass: firstFrameMs !== null && firstFrameMs < 1000 });
      summary.push({ subject, viewers: count, cpu: cpu.node, ffmpeg: cpu.ffmpeg, samples: latencies.length, p50: percentile(latencies, 50), p95, max: latencies.length ? Math.max(...latencies) : null, stalls: tile.stalls, firstFrameMs, target });
    }
    // Still the path it started on (a fallback later in the run would make the figures above a lie).
    checkIngest(subject, await cameraEntry(base), logFile);
  } finally {
    await stopTracked(recorder);
    if (!opts.keep) await removeTempDir(dir);
    else log(`kept ${dir}`);
  }
}

const summary = [];

function printTable() {
  const head = ['subject', 'viewers (ws + page)', 'node CPU %', 'ffmpeg CPU %', 'samples', 'p50 ms', 'p95 ms', 'max ms', 'stalls', 'first frame ms', 'p95 target ms'];
  const body = summary.map((r) => [r.subject, `${r.viewers} + 1`, r.cpu.toFixed(1), r.ffmpeg.toFixed(1), String(r.samples), String(r.p50 ?? '-'), String(r.p95 ?? '-'), String(r.max ?? '-'), String(r.stalls), String(r.firstFrameMs ?? '-'), `≤ ${r.target}`]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells) => '| ' + cells.map((c, i) => c.padEnd(widths[i])).join(' | ') + ' |';
  process.stderr.write(['', fmt(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(fmt), ''].join('\n') + '\n');
}

export async function run(opts, emit) {
  const chosen = chooseSubjects(opts);
  if (chosen.length === 0) {
    log(`none of the subjects ${opts.subjects.join(', ')} is one of this benchmark's (${subjects.join(', ')}): skipped`);
    return;
  }
  const { startStampCamera } = await import('@vigil/testing/stamp-camera');
  const { chromium } = await import('playwright-core');
  ({ installStampReader } = await import('@vigil/testing/browser'));
  emit({ bench: 'live', figure: 'setup', subjects: chosen, viewers: opts.viewers, warmup_seconds: opts.warmup, window_seconds: opts.seconds, stream: STREAM });
  const camera = await startStampCamera(STREAM);
  let browser;
  let tls;
  summary.length = 0;
  try {
    // For native-tls: a test CA whose root this process (fetch), the viewers (ws) and the page (an NSS store in its HOME) trust.
    if (chosen.includes('native-tls')) {
      const dir = await makeTempDir('vigil-bench-live-ca-');
      const { createTestCa } = await import('@vigil/testing/test-ca');
      const { chromiumHomeTrusting } = await import('@vigil/testing/chromium-trust');
      const { Agent, setGlobalDispatcher } = await import('undici');
      const ca = await createTestCa(join(dir, 'ca'), { intermediate: true });
      tls = { dir, caFile: ca.caFile, server: await ca.issue('recorder'), home: await chromiumHomeTrusting(join(dir, 'home'), ca.caFile) };
      setGlobalDispatcher(new Agent({ connect: { ca: ca.caPem } }));
    }
    browser = await chromium.launch({
      executablePath: process.env.VIGIL_TEST_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      ...(tls === undefined ? {} : { env: { ...process.env, HOME: tls.home } }),
    });
    for (const subject of chosen) await runSubject({ subject, opts, emit, camera, browser, tls });
  } finally {
    if (summary.length > 0) printTable();
    await browser?.close();
    await camera.stop();
    if (tls !== undefined && !opts.keep) await removeTempDir(tls.dir);
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--ws-viewers') {
  runViewers(Number(process.argv[3]), process.argv[4], process.argv[5]).then(() => process.exit(0), (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}
