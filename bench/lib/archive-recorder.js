// Starts a Vigil recorder with no cameras on a prepared archive (the archive, jobs and playback benchmarks): its config,
// the process (TZ=UTC, like the synthetic archives' day folders) and what its log says.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@vigil/testing/net';
import { spawnTracked, stopTracked } from './lifecycle.js';
import { watchRecorderOutput } from './recorder-output.js';

const RECORDER_BIN = fileURLToPath(new URL('../../recorder/bin/vigil-recorder.js', import.meta.url));

/**
 * Spawns the recorder on `recordPath` and returns at once: { child, base (http://127.0.0.1:PORT), workDir, spawnedAt,
 * events, waitFor, tail, stop() }. `config` adds to (or overrides) the settings every such recorder has: no cameras, no
 * rescan during the run, and no low-disk retention (the synthetic archives are not to be touched). `nodeArgs` go before
 * the script (e.g. --cpu-prof).
 */
export async function spawnArchiveRecorder({ dir, label, recordPath, config = {}, nodeArgs = [] }) {
  const port = await freePort();
  const workDir = join(dir, `work-${label}`);
  const settings = {
    listen: `127.0.0.1:${port}`,
    record_path: recordPath,
    work_dir: workDir,
    auth: { disabled: true },
    cameras: [],
    archive: { rescan_minutes: 1000 },
    record: { retention: { min_free_percent: 0 } },
    ...config,
  };
  const configFile = join(dir, `config-${label}.yaml`);
  await writeFile(configFile, JSON.stringify(settings, null, 2)); // JSON is YAML
  const spawnedAt = performance.now();
  // TZ=UTC: the node clock (listings without tz_offset_minutes, the archive page's days) dates days in UTC.
  const child = spawnTracked(process.execPath, [...nodeArgs, RECORDER_BIN, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TZ: 'UTC' },
    name: `vigil-recorder-${label}`,
  });
  const { events, waitFor, tail } = watchRecorderOutput(child, label);
  return { child, base: `http://127.0.0.1:${port}`, workDir, spawnedAt, events, waitFor, tail, stop: () => stopTracked(child, { graceMs: 15_000 }) };
}

/** spawnArchiveRecorder(), then waits until it listens and its archive walk has finished (`walk`); stopped again if not. */
export async function startArchiveRecorder(args) {
  const rec = await spawnArchiveRecorder(args);
  try {
    await rec.waitFor('listening', 60_000);
    return { ...rec, walk: await rec.waitFor('walk', 60_000) };
  } catch (err) {
    await stopTracked(rec.child, { graceMs: 5000 });
    throw err;
  }
}
