// Measures a recording's keyframe interval, to know whether keyframes alone can feed a time-lapse.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';

/** Average seconds between keyframes of the file's first video stream; undefined when it cannot tell. */
export function probeGopSeconds(mediaTool: string, file: string): Promise<number | undefined> {
  const ffprobe = mediaTool.includes('/') ? join(dirname(mediaTool), 'ffprobe') : 'ffprobe';
  return new Promise((resolve) => {
    execFile(
      ffprobe,
      ['-v', 'error', '-select_streams', 'v:0', '-skip_frame', 'nokey', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file],
      { timeout: 15_000, maxBuffer: 4 * 1024 * 1024 },
      (err, stdout) => {
        if (err !== null) return resolve(undefined);
        const times = stdout.split('\n').map((l) => Number.parseFloat(l)).filter((n) => Number.isFinite(n));
        if (times.length < 2) return resolve(undefined);
        resolve(((times.at(-1) as number) - (times[0] as number)) / (times.length - 1));
      },
    );
  });
}
