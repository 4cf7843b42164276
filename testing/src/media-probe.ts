// ffprobe wrappers: what a player would see in a recorded file.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ProbeResult {
  /** Seconds from the first to the last presentation (duration minus start time). */
  playSeconds: number;
  duration: number;
  startTime: number;
  codec: string;
  width: number;
  height: number;
  /** What ffprobe complained about while decoding every frame (empty for a clean file). */
  errors: string;
}

export async function probe(path: string): Promise<ProbeResult> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,start_time:stream=codec_name,width,height', '-select_streams', 'v:0', '-of', 'json', path]);
  const info = JSON.parse(stdout) as { format?: { duration?: string; start_time?: string }; streams?: Array<{ codec_name?: string; width?: number; height?: number }> };
  const duration = Number(info.format?.duration ?? NaN);
  const startTime = Number(info.format?.start_time ?? 0);
  const stream = info.streams?.[0];
  // Decode the whole file: a truncated or corrupt file shows up as decoder errors.
  const decoded = await run('ffmpeg', ['-v', 'error', '-i', path, '-f', 'null', '-'], { maxBuffer: 16 * 1024 * 1024 }).then(
    (r) => r.stderr,
    (err: { stderr?: string; message: string }) => err.stderr ?? err.message,
  );
  return {
    playSeconds: duration - startTime,
    duration,
    startTime,
    codec: stream?.codec_name ?? '',
    width: stream?.width ?? 0,
    height: stream?.height ?? 0,
    errors: decoded.trim(),
  };
}

/**
 * The video pictures of a file that follow the one before by less than `minMs` of decode time (default 1 ms), as
 * "dts → dts" in seconds: pictures a player shows for no time. ffmpeg's muxer writes them when its input's decode time
 * stepped back ("Non-monotonous DTS … changing to N+1": one tick apart), and its decoder then reports "non
 * monotonically increasing dts". Reads the packet table only (no decoding): cheap enough for every file of a test.
 */
export async function squeezedPictures(path: string, minMs = 1): Promise<string[]> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=dts_time', '-of', 'csv=p=0', path], { maxBuffer: 16 * 1024 * 1024 });
  const times = stdout.split('\n').filter((line) => line.trim() !== '').map((line) => Number(line.split(',')[0])).filter((t) => Number.isFinite(t));
  const out: string[] = [];
  for (let i = 1; i < times.length; i++) {
    const [before, now] = [times[i - 1] as number, times[i] as number];
    if (now - before < minMs / 1000) out.push(`${before} → ${now}`);
  }
  return out;
}

/** Top-level box types of an MP4 file, in order (to tell fragmented from progressive). */
export async function topLevelBoxes(path: string): Promise<string[]> {
  const buf = await readFile(path);
  const out: string[] = [];
  let off = 0;
  while (off + 8 <= buf.length) {
    let size = buf.readUInt32BE(off);
    const type = buf.toString('latin1', off + 4, off + 8);
    if (size === 1) size = Number(buf.readBigUInt64BE(off + 8));
    if (size === 0) size = buf.length - off;
    if (size < 8) break;
    out.push(type);
    off += size;
  }
  return out;
}
