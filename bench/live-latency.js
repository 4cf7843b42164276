// Benchmark "live": recorder CPU per live WebSocket viewer (1, 10, 50 ws clients in a separate process) and
// camera-to-screen latency p50/p95 and the first picture's delay read from a time-stamped camera in a headless Chromium
// tile meanwhile. These targets are measured here, not asserted by the test suite.
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, removeTempDir, sleep, spawnTracked, stopTracked } from './lib/lifecycle.js';
import { descendants, WindowSampler } from './lib/proc.js';
import { freePort } from '@vigil/testing/net';
import { percentile } from './lib/numbers.js';

export const description =
  'live view: recorder CPU per WebSocket viewer (1, 10, 50) and stamped camera-to-Chromium latency p50/p95 (720p, 2 Mbps, GOP 2 s)';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const RECORDER_BIN = join(ROOT, 'recorder', 'bin', 'vigil-recorder.js');
const STREAM = { width: 1280, height: 720, fps: 25, gop: 50, bitrateKbps: 2000 };

export const defaults = {
  viewers: (process.env.VIGIL_BENCH_VIEWERS ?? '1,10,50').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0),
  seconds: 30,
  warmup: 10,
  keep: false,
};

function log(msg) {
  process.stderr.write(`[live] ${msg}\n`);
}

/** Child mode: `node live-latency.js --ws-viewers N URL` holds N sockets open, reading everything, until stdin closes. */
async function runViewers(count, url) {
  const { WebSocket } = await import('ws');
  const stats = { opened: 0, messages: 0, bytes: 0, closed: 0 };
  const sockets = [];
  for (let i = 0; i < count; i++) {
    const ws = new WebSocket(url);
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

async function startViewers(count, url) {
  const child = spawnTracked(process.execPath, [SELF, '--ws-viewers', String(count), url], { stdio: ['pipe', 'pipe', 'inherit'], name: 'viewers' });
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

export async function run(opts, emit) {
  const { startStampCamera } = await import('@vigil/testing/stamp-camera');
  const { installStampReader } = await import('@vigil/testing/browser');
  const { chromium } = await import('playwright-core');
  const dir = await makeTempDir('vigil-bench-live-');
  const camera = await startStampCamera(STREAM);
  const port = await freePort();
  const configFile = join(dir, 'config.yaml');
  mkdirSync(join(dir, 'recordings')); // the recorder never creates record_path
  writeFileSync(configFile, [
    `listen: 127.0.0.1:${port}`,
    `record_path: ${join(dir, 'recordings')}`,
    `work_dir: ${join(dir, 'work')}`,
    'log_level: warn',
    'auth: { disabled: true }',
    'cameras:',
    `  - { id: cam, source: "${camera.url}" }`,
    '',
  ].join('\n'));
  const recorder = spawnTracked(process.execPath, [RECORDER_BIN, '--config', configFile, '--conf-dir', join(dir, 'conf.d')], { stdio: ['ignore', 'ignore', 'inherit'], name: 'recorder' });
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: process.env.VIGIL_TEST_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; ; i++) {
      const res = await globalThis.fetch(`${base}/api/cameras`).then((r) => r.json(), () => []);
      if (res[0]?.state === 'recording') break;
      if (i > 60) throw new Error('the camera did not start streaming');
      await sleep(500);
    }
    const list = () => [{ pid: recorder.pid, role: 'node' }, ...descendants(recorder.pid).map((p) => ({ pid: p.pid, role: 'ffmpeg' }))];
    const measure = async (label) => {
      const sampler = new WindowSampler(list).start();
      await sleep(opts.seconds * 1000);
      const { roles } = sampler.stop();
      log(`${label}: node ${roles.node?.cpuPercent.toFixed(1)} %`);
      return roles.node?.cpuPercent ?? 0;
    };
    await sleep(opts.warmup * 1000);
    const idle = await measure('no viewers');
    emit({ bench: 'live', viewers: 0, figure: 'recorder_cpu_percent', value: Math.round(idle * 10) / 10 });

    for (const count of opts.viewers) {
      const viewers = await startViewers(count, `ws://127.0.0.1:${port}/websocket/cam`);
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
      const perViewer = (cpu - idle) / (count + 1);
      emit({ bench: 'live', viewers: count, figure: 'recorder_cpu_percent', value: Math.round(cpu * 10) / 10, per_viewer: Math.round(perViewer * 100) / 100, ws_clients: got });
      emit({
        bench: 'live', viewers: count, figure: 'latency_ms', samples: latencies.length,
        p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.length ? Math.max(...latencies) : null,
        stalls: tile.stalls, reconnects: tile.connections - 1, target_p95_below: 1000, pass: percentile(latencies, 95) < 1000,
      });
      // First picture after the socket opened: the page's own measure (target < 1 s, architecture section 8).
      const firstFrameMs = tile.firstFrameMs === undefined ? null : Math.round(tile.firstFrameMs);
      emit({ bench: 'live', viewers: count, figure: 'first_frame_ms', value: firstFrameMs, target_below: 1000, pass: firstFrameMs !== null && firstFrameMs < 1000 });
    }
  } finally {
    await browser.close();
    await stopTracked(recorder);
    await camera.stop();
    if (!opts.keep) await removeTempDir(dir);
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--ws-viewers') {
  runViewers(Number(process.argv[3]), process.argv[4]).then(() => process.exit(0), (err) => {
    process.stderr.write(`${err.stack ?? err}\n`);
    process.exit(1);
  });
}
