// A recorded archive made from one encoded segment (the jobs and playback benchmarks): the segment's encoding, and its
// copies under the recorder's file names with mtime = segment end (what the recorder's archive walk reads).
import { copyFile, mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';

export const SEGMENT_SECONDS = 60;

/**
 * ffmpeg input and output arguments (before the output path) of one segment written the way ffmpeg ingest writes them:
 * 720p25, 2 Mbps H.264, GOP 2 s (50 frames), fragmented MP4 with 200 ms fragments.
 */
export const SEGMENT_ENCODE = [
  '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-t', String(SEGMENT_SECONDS),
  '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '2M', '-g', '50', '-pix_fmt', 'yuv420p',
  '-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof', '-frag_duration', '200000',
];

/**
 * `count` copies of `segment` (copies, not hard links: every file has its own pages in the cache, as in a real archive)
 * for `camera`, one a minute from `start` (Unix seconds), under `recordPath`; `segmentRelativePath` is the recorder's own
 * naming (recording/segment-name.js). Returns the paths in time order.
 */
export async function makeArchive({ recordPath, segment, camera, start, count, segmentRelativePath }) {
  const files = [];
  for (let i = 0; i < count; i++) {
    const from = start + i * SEGMENT_SECONDS;
    const path = join(recordPath, segmentRelativePath(camera, new Date(from * 1000), i + 1));
    await mkdir(join(path, '..'), { recursive: true });
    await copyFile(segment, path);
    await utimes(path, from + SEGMENT_SECONDS, from + SEGMENT_SECONDS); // the walk takes end = mtime
    files.push(path);
  }
  return files;
}
