// Test fixtures for the media layer: real ffmpeg/ffprobe output in temp dirs and parser drivers.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';
import { Fmp4StreamParser, type Fmp4StreamParserOptions } from '../../src/media/fmp4-stream-parser.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';

const execFileP = promisify(execFile);

/** The exact output flags the recorder ingest uses. */
export const FRAGMENT_ARGS = [
  '-f', 'mp4',
  '-movflags', 'frag_keyframe+empty_moov+default_base_moof+skip_trailer',
  '-frag_duration', '200000',
];

export async function run(cmd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return execFileP(cmd, args, { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
}

export async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-media-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export async function hasEncoder(name: string): Promise<boolean> {
  const { stdout } = await run('ffmpeg', ['-hide_banner', '-encoders']);
  return stdout.split('\n').some((line) => line.trim().split(/\s+/)[1] === name);
}

/** Encodes `seconds` of testsrc2 (plus optional sine audio) as fragmented MP4 like the recorder does. */
export async function encodeFragmented(
  dir: string,
  name: string,
  opts: { seconds: number; video: string[]; audio?: boolean; size?: string },
): Promise<string> {
  const out = join(dir, name);
  const inputs = ['-f', 'lavfi', '-i', `testsrc2=size=${opts.size ?? '640x360'}:rate=25`];
  if (opts.audio) inputs.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000');
  const maps = opts.audio ? ['-map', '0:v:0', '-map', '1:a:0', '-c:a', 'aac'] : ['-map', '0:v:0'];
  await run('ffmpeg', ['-v', 'error', '-y', ...inputs, '-t', String(opts.seconds), ...maps, ...opts.video, ...FRAGMENT_ARGS, out]);
  return out;
}

export interface ParseResult {
  inits: InitSegment[];
  fragments: MediaFragment[];
  errors: Error[];
}

/** Feeds `data` to a fresh parser in chunks whose sizes come from `chunkSize(i)`. */
export function parseChunked(data: Buffer, chunkSize: (i: number) => number, opts?: Fmp4StreamParserOptions): ParseResult {
  const result: ParseResult = { inits: [], fragments: [], errors: [] };
  const parser = new Fmp4StreamParser(
    {
      onInit: (init) => result.inits.push(init),
      onFragment: (fragment) => result.fragments.push(fragment),
      onError: (err) => result.errors.push(err),
    },
    opts,
  );
  let offset = 0;
  for (let i = 0; offset < data.length; i++) {
    const n = Math.max(1, chunkSize(i));
    parser.push(data.subarray(offset, offset + n));
    offset += n;
  }
  return result;
}

/** Deterministic pseudo-random generator (mulberry32) so chunking failures are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Keyframe flag of every video packet in decode order, per ffprobe. */
export async function probeVideoKeyframes(path: string): Promise<boolean[]> {
  const { stdout } = await run('ffprobe', [
    '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=flags', '-of', 'csv=p=0', path,
  ]);
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => l.includes('K'));
}

export async function probeVideoStream(path: string): Promise<{ profile: string; level: number; width: number; height: number }> {
  const { stdout } = await run('ffprobe', [
    '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=profile,level,width,height', '-of', 'json', path,
  ]);
  const parsed = JSON.parse(stdout) as { streams: Array<{ profile: string; level: number; width: number; height: number }> };
  const stream = parsed.streams[0];
  if (!stream) throw new Error(`ffprobe found no video stream in ${path}`);
  return stream;
}

/** Values of named syntax elements from ffmpeg's trace_headers bitstream filter (first occurrence each). */
export async function traceHeaderFields(path: string, names: string[]): Promise<Map<string, number>> {
  const { stderr } = await run('ffmpeg', [
    '-v', 'verbose', '-i', path, '-frames:v', '1', '-map', '0:v:0', '-c', 'copy', '-bsf:v', 'trace_headers', '-f', 'null', '-',
  ]);
  const fields = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    const m = /\]\s+\d+\s+(\S+)\s+[01]+\s+=\s+(\d+)\s*$/.exec(line);
    if (m && m[1] && m[2] && names.includes(m[1]) && !fields.has(m[1])) fields.set(m[1], Number(m[2]));
  }
  return fields;
}
