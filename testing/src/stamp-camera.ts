// Test support: runs the time-stamping RTSP camera (testing/fixtures/stamp_camera.py) and decodes its block code.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export interface StampCamera {
  readonly url: string;
  stop(): Promise<void>;
}

export interface StampCameraOptions {
  width?: number;
  height?: number;
  fps?: number;
  gop?: number;
  bitrateKbps?: number;
  /** 'h264' (default) or 'h265'. */
  codec?: 'h264' | 'h265';
  /** B-frames between references (default 0: none; H.264 then is Main instead of constrained baseline). */
  bframes?: number;
}

/** The compiled file lives in testing/dist/src/, the fixture in testing/fixtures/. */
const FIXTURE = fileURLToPath(new URL('../../fixtures/stamp_camera.py', import.meta.url));
const PYTHON = process.env['VIGIL_TEST_PYTHON'] ?? '/usr/bin/python3';
const READY_TIMEOUT_MS = 15_000;

/** Bits in the code, blocks per row, and the block side as a fraction of the picture width (see the fixture). */
export const STAMP_BITS = 48;
export const STAMP_PER_ROW = 24;
export const STAMP_WIDTH_DIVISOR = 26;

export async function startStampCamera(opts: StampCameraOptions = {}): Promise<StampCamera> {
  const args = [
    FIXTURE, '--port', '0', '--watch-stdin',
    '--width', String(opts.width ?? 640), '--height', String(opts.height ?? 360),
    '--fps', String(opts.fps ?? 25), '--gop', String(opts.gop ?? 25), '--bitrate-kbps', String(opts.bitrateKbps ?? 1000),
    '--codec', opts.codec ?? 'h264', '--bframes', String(opts.bframes ?? 0),
  ];
  const child: ChildProcess = spawn(PYTHON, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const kill = (): void => void child.kill('SIGKILL');
  process.on('exit', kill);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  child.stdin?.on('error', () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`stamp camera not READY in time: ${stderr}`)), READY_TIMEOUT_MS);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^READY (\d+)$/m.exec(out);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`stamp camera exited before READY: ${stderr}`));
    });
  });
  return {
    url: `rtsp://127.0.0.1:${port}/cam`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(kill, 3000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', kill);
    },
  };
}

/** Decodes the stamp from a luma reader over a picture `width` pixels wide; undefined when it is implausible. */
export function decodeStamp(luma: (x: number, y: number) => number, width: number, now = Date.now()): number | undefined {
  const block = Math.floor(width / STAMP_WIDTH_DIVISOR);
  let value = 0;
  for (let i = 0; i < STAMP_BITS; i++) {
    const x = (i % STAMP_PER_ROW) * block + (block >> 1);
    const y = Math.floor(i / STAMP_PER_ROW) * block + (block >> 1);
    value = value * 2 + (luma(x, y) > 128 ? 1 : 0);
  }
  return Math.abs(now - value) < 60_000 ? value : undefined;
}

/** The frame number row below the stamp (24 bits): the third block row. */
function decodeFrameNumber(luma: (x: number, y: number) => number, width: number): number {
  const block = Math.floor(width / STAMP_WIDTH_DIVISOR);
  let value = 0;
  for (let i = 0; i < STAMP_PER_ROW; i++) value = value * 2 + (luma(i * block + (block >> 1), 2 * block + (block >> 1)) > 128 ? 1 : 0);
  return value;
}

const FFMPEG = process.env['VIGIL_TEST_FFMPEG'] ?? 'ffmpeg';
const run = promisify(execFile);

/** What the stamp camera wrote into one decoded picture. */
export interface FrameCode {
  /** The wall-clock time (ms) the camera made the picture at. */
  stamp: number;
  /** The picture's number in the camera's stream (0, 1, 2, … from the stream's start). */
  number: number;
}

/**
 * Decodes a recording of the stamp camera (`width` × `height` pictures) with ffmpeg and reads every picture's code,
 * in presentation order: a recording that holds every picture in order gives consecutive numbers. Every decoded
 * picture once (`-fps_mode passthrough`: ffmpeg neither repeats nor drops pictures to fit a frame rate).
 */
export async function readFrameCodes(path: string, width: number, height: number): Promise<FrameCode[]> {
  const { stdout } = await run(FFMPEG, ['-v', 'error', '-i', path, '-map', '0:v:0', '-fps_mode', 'passthrough', '-f', 'rawvideo', '-pix_fmt', 'gray', '-'], { encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 });
  const size = width * height;
  const out: FrameCode[] = [];
  for (let at = 0; at + size <= stdout.length; at += size) {
    const luma = (x: number, y: number): number => stdout[at + y * width + x] ?? 0;
    out.push({ stamp: readRawStamp(luma, width), number: decodeFrameNumber(luma, width) });
  }
  return out;
}

/** The stamp bits as they are (no plausibility check against now: recordings are read after the fact). */
function readRawStamp(luma: (x: number, y: number) => number, width: number): number {
  const block = Math.floor(width / STAMP_WIDTH_DIVISOR);
  let value = 0;
  for (let i = 0; i < STAMP_BITS; i++) value = value * 2 + (luma((i % STAMP_PER_ROW) * block + (block >> 1), Math.floor(i / STAMP_PER_ROW) * block + (block >> 1)) > 128 ? 1 : 0);
  return value;
}
