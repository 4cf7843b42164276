// Test helpers for raw elementary streams: Annex-B NAL splitting, access unit grouping, ADTS frames, ffmpeg encodes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { h265NalType } from '../../src/media/h265-sps.js';
import { run } from './fixtures.js';

export type VideoCodec = 'h264' | 'h265';

/** NAL units of an Annex-B byte stream, without start codes or trailing zero bytes. */
export function splitAnnexB(stream: Buffer): Buffer[] {
  const starts: number[] = [];
  for (let i = 0; i + 2 < stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      starts.push(i + 3);
      i += 2;
    }
  }
  const nals: Buffer[] = [];
  starts.forEach((start, k) => {
    let end = k + 1 < starts.length ? (starts[k + 1] ?? stream.length) - 3 : stream.length;
    // A NAL unit never ends in 0x00 (rbsp_trailing_bits); zeros here belong to the next start code.
    while (end > start && stream[end - 1] === 0) end--;
    if (end > start) nals.push(stream.subarray(start, end));
  });
  return nals;
}

export function nalType(codec: VideoCodec, nal: Buffer): number {
  return codec === 'h264' ? (nal[0] ?? 0) & 0x1f : h265NalType(nal);
}

export interface ParameterSets {
  vps?: Buffer;
  sps: Buffer;
  pps: Buffer[];
}

export interface AccessUnit {
  nalus: Buffer[];
  keyframe: boolean;
}

/**
 * Groups NAL units into access units: a VCL NAL unit that starts a picture (H.264 first_mb_in_slice 0,
 * H.265 first_slice_segment_in_pic_flag: the first payload bit is 1) opens a new one, and the non-VCL
 * units before it (SEI, ...) belong to it. Parameter sets and delimiters are collected apart.
 */
export function groupAccessUnits(codec: VideoCodec, nals: Buffer[]): { params: ParameterSets; units: AccessUnit[] } {
  let vps: Buffer | undefined;
  let sps: Buffer | undefined;
  const pps: Buffer[] = [];
  const units: AccessUnit[] = [];
  let pending: Buffer[] = [];
  let current: AccessUnit | undefined;
  const headerBytes = codec === 'h264' ? 1 : 2;
  for (const nal of nals) {
    const type = nalType(codec, nal);
    const vcl = codec === 'h264' ? type >= 1 && type <= 5 : type <= 31;
    if (vcl) {
      if (((nal[headerBytes] ?? 0) & 0x80) !== 0 || !current) {
        current = { nalus: [], keyframe: false };
        units.push(current);
        current.nalus.push(...pending);
        pending = [];
      }
      current.nalus.push(nal);
      if (codec === 'h264' ? type === 5 : type >= 16 && type <= 23) current.keyframe = true;
      continue;
    }
    const isVps = codec === 'h265' && type === 32;
    const isSps = codec === 'h264' ? type === 7 : type === 33;
    const isPps = codec === 'h264' ? type === 8 : type === 34;
    const isAud = codec === 'h264' ? type === 9 : type === 35;
    if (isVps) vps ??= nal;
    else if (isSps) sps ??= nal;
    else if (isPps) {
      if (!pps.some((p) => p.equals(nal))) pps.push(nal);
    } else if (codec === 'h265' && type === 40 && current) current.nalus.push(nal); // suffix SEI: this picture's
    else if (!isAud) pending.push(nal);
  }
  if (!sps || pps.length === 0) throw new Error('stream has no SPS/PPS');
  return { params: vps ? { vps, sps, pps } : { sps, pps }, units };
}

export interface AdtsStream {
  frames: Buffer[];
  audioObjectType: number;
  sampleRate: number;
  channels: number;
}

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/** Raw AAC frames of an ADTS stream (headers of 7 bytes, 9 with CRC, stripped) and its parameters. */
export function readAdts(data: Buffer): AdtsStream {
  const frames: Buffer[] = [];
  let params: Omit<AdtsStream, 'frames'> | undefined;
  let off = 0;
  while (off + 7 <= data.length) {
    if (data[off] !== 0xff || ((data[off + 1] ?? 0) & 0xf0) !== 0xf0) throw new Error(`no ADTS sync at ${off}`);
    const b1 = data[off + 1] ?? 0;
    const b2 = data[off + 2] ?? 0;
    const b3 = data[off + 3] ?? 0;
    const headerSize = b1 & 1 ? 7 : 9; // protection_absent
    const frameLength = ((b3 & 0x03) << 11) | ((data[off + 4] ?? 0) << 3) | ((data[off + 5] ?? 0) >> 5);
    params ??= {
      audioObjectType: (b2 >> 6) + 1,
      sampleRate: ADTS_RATES[(b2 >> 2) & 0x0f] ?? 0,
      channels: ((b2 & 1) << 2) | (b3 >> 6),
    };
    frames.push(data.subarray(off + headerSize, off + frameLength));
    off += frameLength;
  }
  if (!params) throw new Error('no ADTS frames');
  return { frames, ...params };
}

/** Encodes `frames` of testsrc2 to a raw Annex-B elementary stream; returns its bytes and path. */
export async function encodeAnnexB(
  dir: string,
  name: string,
  opts: { codec: VideoCodec; size: string; frames: number; args: string[]; pixFmt?: string },
): Promise<{ path: string; data: Buffer }> {
  const path = join(dir, name);
  // Converting in the source filter keeps odd sizes that a 4:2:0 source would round down.
  const pixFmt = opts.pixFmt ? `,format=${opts.pixFmt}` : '';
  const [encoder, bsf, format] = opts.codec === 'h264' ? ['libx264', 'h264_mp4toannexb', 'h264'] : ['libx265', 'hevc_mp4toannexb', 'hevc'];
  await run('ffmpeg', [
    '-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=${opts.size}:rate=25${pixFmt}`, '-frames:v', String(opts.frames),
    '-c:v', encoder, ...opts.args, '-bsf:v', bsf, '-f', format, path,
  ]);
  return { path, data: await readFile(path) };
}

/**
 * ffmpeg's own mp4 (-c copy) of an elementary stream, for comparing sample entries, and the values of
 * named syntax elements of its first picture per the trace_headers filter (one process for both).
 */
export async function remuxWithTrace(
  input: string,
  output: string,
  names: string[],
  extra: string[] = [],
): Promise<{ mp4: Buffer; fields: Map<string, number> }> {
  const { stderr } = await run('ffmpeg', [
    '-v', 'verbose', '-y', '-i', input,
    '-map', '0:v:0', '-c', 'copy', ...extra, '-f', 'mp4', output,
    '-map', '0:v:0', '-c', 'copy', '-frames:v', '1', '-bsf:v', 'trace_headers', '-f', 'null', '-',
  ]);
  const fields = new Map<string, number>();
  for (const line of stderr.split('\n')) {
    const m = /\]\s+\d+\s+(\S+)\s+[01]+\s+=\s+(\d+)\s*$/.exec(line);
    if (m && m[1] && m[2] && names.includes(m[1]) && !fields.has(m[1])) fields.set(m[1], Number(m[2]));
  }
  return { mp4: await readFile(output), fields };
}
