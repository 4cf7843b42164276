// ffprobe for benchmarks: a file's keyframe interval, and its video's duration and frame count.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';
const FFPROBE = FFMPEG.includes('/') ? join(FFMPEG, '..', 'ffprobe') : 'ffprobe';

/** ffprobe -v error ARGS: its output, trimmed. */
function probe(args) {
  return execFileSync(FFPROBE, ['-v', 'error', ...args], { encoding: 'utf8', timeout: 120_000 }).trim();
}

/** Average keyframe interval, seconds (what the recorder's gop-probe measures). */
export function gopSeconds(file) {
  const t = probe(['-select_streams', 'v:0', '-skip_frame', 'nokey', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file])
    .split('\n').map(Number.parseFloat).filter(Number.isFinite);
  return t.length < 2 ? null : (t.at(-1) - t[0]) / (t.length - 1);
}

/**
 * { duration (s), frames } of the first video stream. `count`: demux every packet (no decode; for the fragmented
 * segment, whose moov lists no samples); otherwise the sample count of the moov (header only, also over http://).
 */
export function mediaInfo(input, { count = false } = {}) {
  const j = JSON.parse(probe([...(count ? ['-count_packets'] : []), '-select_streams', 'v:0', '-show_entries', 'stream=nb_frames,nb_read_packets:format=duration', '-of', 'json', input]));
  const s = j.streams?.[0] ?? {};
  return { duration: Number(j.format?.duration), frames: Number(count ? s.nb_read_packets : s.nb_frames) };
}
