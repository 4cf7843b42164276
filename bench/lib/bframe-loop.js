// Encodes the benchmark's B-frame camera clip: Annex-B H.264 High with B-frames, and its pictures' presentation order.
import { execFile } from 'node:child_process';
import { unlink, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FFMPEG = process.env.VIGIL_TEST_FFMPEG ?? 'ffmpeg';
const FFPROBE = process.env.VIGIL_TEST_FFPROBE ?? 'ffprobe';

/**
 * Writes `path` (Annex-B, SPS/PPS before every IDR, closed GOPs of `gop` pictures, `bframes` B-frames between
 * references, no pyramid) and `path + '.order'`: each picture's place in presentation order, in decoding order, as the
 * looped-file fixture's --order wants it. The same picture, rate and GOP as the plain loop file; only the B-frames differ.
 */
export async function encodeBframeLoop(path, { width, height, fps, gop, bitrateKbps, seconds }, bframes = 2) {
  const frames = Math.max(1, Math.round(seconds * fps));
  const rate = `${bitrateKbps}k`;
  const mp4 = `${path}.mp4`;
  await run(FFMPEG, [
    '-hide_banner', '-nostdin', '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc2=size=${width}x${height}:rate=${fps}`, '-frames:v', String(frames),
    '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'high', '-pix_fmt', 'yuv420p',
    '-bf', String(bframes), '-b_strategy', '0', '-g', String(gop), '-keyint_min', String(gop), '-sc_threshold', '0',
    '-b:v', rate, '-maxrate', rate, '-bufsize', rate,
    '-x264-params', 'repeat-headers=1:b-pyramid=none:open-gop=0',
    mp4,
  ]);
  await run(FFMPEG, ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-i', mp4, '-c:v', 'copy', '-bsf:v', 'h264_mp4toannexb', '-f', 'h264', path]);
  const { stdout } = await run(FFPROBE, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts', '-of', 'csv=p=0', mp4], { maxBuffer: 64 * 1024 * 1024 });
  const pts = stdout.split('\n').filter((l) => l.trim() !== '').map(Number);
  const step = [...pts].sort((a, b) => a - b).reduce((min, p, i, all) => (i > 0 && p - all[i - 1] > 0 ? Math.min(min, p - all[i - 1]) : min), Infinity);
  const first = Math.min(...pts);
  const order = pts.map((p) => Math.round((p - first) / step));
  if (new Set(order).size !== order.length || Math.max(...order) !== order.length - 1) throw new Error(`the B-frame clip's presentation order is not a permutation (${order.slice(0, 20).join(' ')} …)`);
  await writeFile(`${path}.order`, `${order.join(' ')}\n`);
  await unlink(mp4);
  return { path, order: `${path}.order` };
}
