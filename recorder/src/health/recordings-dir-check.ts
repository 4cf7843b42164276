// Readiness check `recordings_dir`: a real write, fsync and delete under record_path, at most once per interval.
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckOutcome, ReadinessCheck } from './readiness.js';

export const RECORDINGS_DIR_PROBE_INTERVAL_MS = 5000;

export interface RecordingsDirCheckOptions {
  recordPath: string;
  intervalMs?: number;
  now?: () => number;
  /** Told about a failed probe (with the errno code) so the log says why. */
  onFailure?(reason: string): void;
}

export function recordingsDirCheck(opts: RecordingsDirCheckOptions): ReadinessCheck {
  const intervalMs = opts.intervalMs ?? RECORDINGS_DIR_PROBE_INTERVAL_MS;
  const now = opts.now ?? Date.now;
  // A dot-name the archive walk skips; the pid keeps two recorders on one disk apart.
  const probeFile = join(opts.recordPath, `.vigil-ready-probe-${process.pid}`);
  let last: { at: number; writable: boolean } | undefined;

  const writeProbe = async (): Promise<boolean> => {
    try {
      // The directory is never created here: a missing record_path (an unmounted disk) must fail, not be papered over.
      const fh = await open(probeFile, 'w');
      try {
        await fh.writeFile('vigil readiness probe\n');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await unlink(probeFile);
      return true;
    } catch (err) {
      opts.onFailure?.(`${probeFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return false;
    }
  };

  return {
    name: 'recordings_dir',
    probe: async (): Promise<CheckOutcome> => {
      if (last === undefined || now() - last.at >= intervalMs) last = { at: now(), writable: await writeProbe() };
      return { ok: last.writable, detail: { path: opts.recordPath, writable: last.writable } };
    },
    unanswered: () => ({ path: opts.recordPath, writable: false }),
  };
}
