// Benchmark "recording", the measurement window: what the subject wrote to disk per camera, the CPU and memory of its
// processes over the window, and the StarvedError that marks a run spoilt by a starved machine rather than by the subject.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './lifecycle.js';
import { readMachineTicks, WindowSampler } from './proc.js';

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

const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * A run spoilt by a starved machine rather than by the subject: cameras that did not start writing in time or wrote
 * nothing in the window, a request that failed. This machine is shared; such a run is repeated once it has calmed down
 * (a few times at most, see recording-cpu.js). A fallback to ffmpeg, a wrong ingest path or a recorder that exited are never retried.
 */
export class StarvedError extends Error {}

/** Resolves once `count` cameras have written bytes under `dir`; throws when `alive()` names a problem, StarvedError after `timeoutMs`. */
export async function waitAllWriting(dir, keyOf, count, timeoutMs, alive, what) {
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

/**
 * Measures one subject that is already running: warm-up, then the window. `list()` names the subject's processes; the
 * camera servers are sampled alongside as role 'cameras' (not part of any subject's figures: they show starvation).
 * Every camera is `cam<i>`: those with no byte written during the window are listed in `silentCameras`.
 */
export async function measure({ count, kbps, dir, keyOf, list, cameraPids, warmup, seconds, atWindowStart = () => undefined }) {
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
