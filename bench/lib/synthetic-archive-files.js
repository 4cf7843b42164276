// Benchmark "archive", walk mode: a synthetic archive of one-minute segments as empty files with the recorder's names
// and mtimes (worker threads, synchronous fs: ~2× the files/s of fs.promises).
import { cpus } from 'node:os';
import { Worker } from 'node:worker_threads';

export const DAY_S = 86_400;
export const PER_DAY = 1440; // one-minute segments

// flag[0] = 1: stop now (a signal arrived); flag[1] counts workers that have stopped creating files.
const MAKE_FILES_WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { mkdirSync, openSync, futimesSync, closeSync } = require('node:fs');
const flag = new Int32Array(workerData.flag);
const p2 = (n) => (n < 10 ? '0' : '') + n;
let files = 0;
function make() {
  for (const { root, camera, dayStart, firstSeq } of workerData.tasks) {
    const d = new Date(dayStart * 1000);
    const ymd = d.getUTCFullYear() + p2(d.getUTCMonth() + 1) + p2(d.getUTCDate());
    const dir = root + '/' + camera + '/' + ymd.slice(0, 4) + '-' + ymd.slice(4, 6) + '-' + ymd.slice(6);
    mkdirSync(dir, { recursive: true });
    for (let m = 0; m < ${PER_DAY}; m++) {
      if (Atomics.load(flag, 0) === 1) return;
      const fd = openSync(dir + '/' + camera + '_' + ymd + 'T' + p2(Math.floor(m / 60)) + p2(m % 60) + '00Z_' + (firstSeq + m) + '.mp4', 'w');
      const mtime = dayStart + m * 60 + 60; // the walk takes end = mtime
      futimesSync(fd, mtime, mtime);
      closeSync(fd);
      files++;
    }
  }
}
try {
  make();
} finally {
  Atomics.add(flag, 1, 1);
  Atomics.notify(flag, 1);
}
parentPort.postMessage(files);
`;

/**
 * One empty file per minute of every day of `shape` ({ cameras, days, start }) under `root`, named as the recorder names
 * segments, mtime = segment end; made by up to 4 worker threads. Resolves with the number of files.
 */
export async function makeFiles(root, shape) {
  const tasks = [];
  for (const camera of shape.cameras) {
    for (let d = 0; d < shape.days; d++) tasks.push({ root, camera, dayStart: shape.start + d * DAY_S, firstSeq: d * PER_DAY + 1 });
  }
  const nWorkers = Math.max(1, Math.min(4, cpus().length));
  const parts = Array.from({ length: nWorkers }, (_, w) => tasks.filter((_, i) => i % nWorkers === w));
  const flag = new Int32Array(new SharedArrayBuffer(8));
  // On ctrl-C the lifecycle hooks remove the temp dir at once: first make the workers stop creating files in it
  // (prepended, so this runs before them), else the removal races them (ENOTEMPTY) and leaves files behind.
  const stopWorkers = () => {
    Atomics.store(flag, 0, 1);
    const deadline = Date.now() + 5000;
    for (let done; (done = Atomics.load(flag, 1)) < nWorkers && Date.now() < deadline; ) Atomics.wait(flag, 1, done, 100);
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const sig of signals) process.prependListener(sig, stopWorkers);
  try {
    const counts = await Promise.all(
      parts.map(
        (part) =>
          new Promise((resolve, reject) => {
            const worker = new Worker(MAKE_FILES_WORKER, { eval: true, workerData: { tasks: part, flag: flag.buffer } });
            worker.once('message', resolve);
            worker.once('error', reject);
            worker.once('exit', (code) => (code !== 0 ? reject(new Error(`file worker exited ${code}`)) : undefined));
          }),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  } catch (err) {
    stopWorkers(); // one worker failed: the others must not go on writing into a dir about to be removed
    throw err;
  } finally {
    for (const sig of signals) process.removeListener(sig, stopWorkers);
  }
}
