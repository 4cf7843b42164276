// Measures a recording's keyframe interval, to know whether keyframes alone can feed a time-lapse.
import { runFfprobe } from './ffprobe.js';

/** Average seconds between keyframes of the file's first video stream; undefined when it cannot tell. */
export async function probeGopSeconds(mediaTool: string, file: string): Promise<number | undefined> {
  const stdout = await runFfprobe(mediaTool, ['-v', 'error', '-select_streams', 'v:0', '-skip_frame', 'nokey', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file]);
  if (stdout === undefined) return undefined;
  const times = stdout.split('\n').map((l) => Number.parseFloat(l)).filter((n) => Number.isFinite(n));
  if (times.length < 2) return undefined;
  return ((times.at(-1) as number) - (times[0] as number)) / (times.length - 1);
}
