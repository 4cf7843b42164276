// Serves N benchmark cameras with GStreamer: ceil(N / perServer) rtsp_multi_camera.py processes, several mounts each.
import { fileURLToPath } from 'node:url';
import { spawnTracked, stopAll } from './lifecycle.js';

const FIXTURE = fileURLToPath(new URL('../../testing/fixtures/rtsp_multi_camera.py', import.meta.url));
/** python3-gi is installed for the system python only, not for a pyenv one on PATH. */
const PYTHON = process.env.VIGIL_TEST_PYTHON ?? '/usr/bin/python3';
const READY_TIMEOUT_MS = 30_000;

function startServer({ first, mounts, file, fps, order }) {
  // stdin stays an open pipe: the fixture exits on its EOF, i.e. when the bench dies.
  const child = spawnTracked(
    PYTHON,
    [FIXTURE, '--port', '0', '--first', String(first), '--mounts', String(mounts), '--file', file, '--fps', String(fps), ...(order === undefined ? [] : ['--order', order]), '--watch-stdin'],
    { stdio: ['pipe', 'pipe', 'pipe'], name: 'rtsp_multi_camera' },
  );
  child.stdin.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`camera server not READY within ${READY_TIMEOUT_MS} ms: ${err.trim()}`)), READY_TIMEOUT_MS);
    const fail = (e) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s) => {
      err = (err + s).slice(-4000);
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s) => {
      out += s;
      const m = /^READY (\d+)$/m.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), first, mounts });
      }
    });
    void child.exitedPromise.then(({ code, signal }) => fail(new Error(`camera server exited (code ${code}, signal ${signal}): ${err.trim()}`)));
  });
}

/**
 * Starts `count` cameras looping `file` (with B-frames: `order`, its presentation order file); resolves
 * { urls, pids, stop() }. Each server process holds up to `perServer` mount points (one GStreamer pipeline each).
 */
export async function startCameras({ count, file, order, fps = 25, perServer = 25 }) {
  const servers = [];
  try {
    for (let first = 0; first < count; first += perServer) {
      servers.push(await startServer({ first, mounts: Math.min(perServer, count - first), file, fps, order }));
    }
  } catch (err) {
    await stopAll(servers.map((s) => s.child), { graceMs: 3000 });
    throw err;
  }
  const urls = [];
  for (const s of servers) for (let i = s.first; i < s.first + s.mounts; i++) urls.push(`rtsp://127.0.0.1:${s.port}/cam${i}`);
  return {
    urls,
    pids: servers.map((s) => s.child.pid),
    stop: () => stopAll(servers.map((s) => s.child), { graceMs: 3000 }),
  };
}
