// Test helper: segment files as the recorder writes them (init, then 200 ms moof+mdat fragments), built box by box.
import { appendFile, writeFile } from 'node:fs/promises';
import { box, fullBox, syntheticInit, u32, u64 } from '../media/box-builder.js';

export const TIMESCALE = 90_000;
/** 25 fps: five pictures of 3600 ticks make one 200 ms fragment. */
export const SAMPLE_TICKS = 3600;
export const SAMPLES_PER_FRAGMENT = 5;
export const FRAGMENT_TICKS = SAMPLE_TICKS * SAMPLES_PER_FRAGMENT;
export const FRAGMENT_MS = (FRAGMENT_TICKS / TIMESCALE) * 1000;

const KEYFRAME_FLAGS = 0x02000000;
const NON_SYNC_FLAGS = 0x01010000;

/** The init segment of a one-video-track recording; another timescale makes another stream layout. */
export function initSegment(timescale = TIMESCALE): Buffer {
  return syntheticInit([{ trackId: 1, handler: 'vide', timescale }]);
}

/**
 * Sample bytes that look like a fragment's start: a moof box header (size and type), as compressed pictures may hold
 * by chance. A reader that looks for fragments by their bytes must not take these for one.
 */
export function lookalikePayload(length: number): Buffer {
  const unit = Buffer.concat([u32(64), Buffer.from('moof', 'latin1'), u32(16), Buffer.from('mfhd', 'latin1')]);
  return Buffer.concat(Array.from({ length: Math.ceil(length / unit.length) }, () => unit)).subarray(0, length);
}

/** One fragment: tfdt `decode`, five samples of `sampleBytes` each, the first a keyframe when `keyframe`. */
export function fragment(sequence: number, decode: number, keyframe: boolean, sampleBytes = 100, lookalikes = false): Buffer {
  const samples = Array.from({ length: SAMPLES_PER_FRAGMENT }, (_, i) => [u32(SAMPLE_TICKS), u32(sampleBytes), u32(i === 0 && keyframe ? KEYFRAME_FLAGS : NON_SYNC_FLAGS)]).flat();
  const build = (dataOffset: number): Buffer =>
    box('moof', fullBox('mfhd', 0, 0, u32(sequence)), box('traf', fullBox('tfhd', 0, 0x020000, u32(1)), fullBox('tfdt', 1, 0, u64(decode)), fullBox('trun', 0, 0x000701, u32(SAMPLES_PER_FRAGMENT), u32(dataOffset), ...samples)));
  const moof = build(0);
  const payload = lookalikes ? lookalikePayload(SAMPLES_PER_FRAGMENT * sampleBytes) : Buffer.alloc(SAMPLES_PER_FRAGMENT * sampleBytes, sequence & 0xff);
  return Buffer.concat([build(moof.length + 8), box('mdat', payload)]);
}

export interface FragmentPlan {
  /** Decode time of the first fragment (a file continues its camera's clock). */
  firstDecode?: number;
  /** Every how many fragments a keyframe comes (5: one a second). */
  keyEvery?: number;
  sampleBytes?: number;
  /** Samples full of bytes that look like moof boxes. */
  lookalikes?: boolean;
}

/** `count` fragments following on from `plan.firstDecode`. */
export function fragments(count: number, plan: FragmentPlan = {}, firstIndex = 0): Buffer {
  const keyEvery = plan.keyEvery ?? 5;
  const parts: Buffer[] = [];
  for (let i = firstIndex; i < firstIndex + count; i++) parts.push(fragment(i + 1, (plan.firstDecode ?? 0) + i * FRAGMENT_TICKS, i % keyEvery === 0, plan.sampleBytes, plan.lookalikes));
  return Buffer.concat(parts);
}

/** Writes init + `count` fragments; returns the file's size. */
export async function writeSegment(path: string, count: number, plan: FragmentPlan = {}, timescale = TIMESCALE): Promise<number> {
  const data = Buffer.concat([initSegment(timescale), fragments(count, plan)]);
  await writeFile(path, data);
  return data.length;
}

/** Appends fragments `firstIndex` … to a file being written; returns the bytes added. */
export async function appendFragments(path: string, firstIndex: number, count: number, plan: FragmentPlan = {}): Promise<number> {
  const data = fragments(count, plan, firstIndex);
  await appendFile(path, data);
  return data.length;
}
