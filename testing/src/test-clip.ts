// Test support: a short MP4 clip (test pattern, H.264 without B-frames, optional AAC) for servers that stream a file.
import { runCommand, ok } from './command.js';

export interface TestClipOptions {
  seconds: number;
  width?: number;
  height?: number;
  fps?: number;
  /** Pictures between keyframes (default fps). */
  gop?: number;
  /** A 440 Hz AAC-LC track, 48 kHz mono (default false). */
  audio?: boolean;
}

const FFMPEG = process.env['VIGIL_TEST_FFMPEG'] ?? 'ffmpeg';

/** Encodes the clip to `path` (.mp4): H.264 baseline, a keyframe every `gop` pictures, exactly `seconds` long. */
export async function encodeTestClip(path: string, opts: TestClipOptions): Promise<void> {
  const fps = opts.fps ?? 25;
  const gop = String(opts.gop ?? fps);
  const args = ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${opts.width ?? 320}x${opts.height ?? 180}:rate=${fps}`];
  if (opts.audio === true) args.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000');
  args.push('-t', String(opts.seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'baseline', '-pix_fmt', 'yuv420p');
  args.push('-g', gop, '-keyint_min', gop, '-sc_threshold', '0', '-bf', '0', '-b:v', '400k');
  if (opts.audio === true) args.push('-c:a', 'aac', '-b:a', '64k', '-ac', '1');
  args.push(path);
  ok(await runCommand(FFMPEG, args), 'ffmpeg (test clip)');
}
