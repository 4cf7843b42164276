// Readiness check `recordings_dir`: a real write, fsync and delete under record_path, at most once per interval.
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckOutcome, ReadinessCheck } from './readiness.js';

export const RECORDINGS_DIR_PROBE_INTERVAL_MS = 5000;
/** How long a due write is awaited before the previous result is used; below the readiness deadline. */
const STALE_GRACE_MS = 40;

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
  let refreshing: Promise<boolean> | undefined;

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
      const age = last === undefined ? Infinity : now() - last.at;
      if (age >= intervalMs && refreshing === undefined) {
        const started = now();
        refreshing = writeProbe().then((writable) => {
          last = { at: started, writable };
          refreshing = undefined;
          return writable;
        });
      }
      const previous = last;
      let writable: boolean;
      if (refreshing === undefined) writable = previous?.writable ?? false;
      else if (previous === undefined || age >= 2 * intervalMs) writable = await refreshing;
      else {
        // A slow fsync on a busy disk must not fail readiness: if the write has not answered within a short grace,
        // the previous result stands, for one more interval at most. After that the write is waited for (and
        // counts as failed at the runner's deadline), so a hung disk shows within about two intervals.
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(previous.writable), STALE_GRACE_MS);
        });
        writable = await Promise.race([refreshing, grace]).finally(() => clearTimeout(timer));
      }
      return { ok: writable, detail: { path: opts.recordPath, writable } };
    },
    unanswered: () => ({ path: opts.recordPath, writable: false }),
  };
}
