// Runs the ffprobe that sits beside the configured media tool (ffmpeg_path), for what the jobs read of a file.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';

/** ffprobe's standard output for `args`; undefined when it cannot run or fails. */
export function runFfprobe(mediaTool: string, args: readonly string[], maxBuffer = 4 * 1024 * 1024): Promise<string | undefined> {
  const ffprobe = mediaTool.includes('/') ? join(dirname(mediaTool), 'ffprobe') : 'ffprobe';
  return new Promise((resolve) => {
    execFile(ffprobe, [...args], { timeout: 15_000, maxBuffer }, (err, stdout) => resolve(err === null ? stdout : undefined));
  });
}
