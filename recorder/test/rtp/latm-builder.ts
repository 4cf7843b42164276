// Test support for MP4A-LATM: bit-packed StreamMuxConfigs and audioMuxElements built field by field (ISO 14496-3 §1.7.3).
import { bits, type BitField } from './bit-fields.js';

export interface MuxConfigFields {
  /** AAC object type (2 = LC). */
  objectType?: number;
  /** Sampling frequency index (3 = 48 kHz, 4 = 44.1 kHz, 8 = 16 kHz). */
  frequencyIndex?: number;
  channels?: number;
  /** numSubFrames + 1. */
  framesPerElement?: number;
  /** Bits of other data after each element's frames (0: none). */
  otherDataBits?: number;
  crc?: boolean;
  programs?: number;
  frameLengthFlag?: boolean;
}

/** The fields of an AAC-LC AudioSpecificConfig (GASpecificConfig without core coder or extension). */
export function ascFields(f: MuxConfigFields = {}): BitField[] {
  return [[f.objectType ?? 2, 5], [f.frequencyIndex ?? 3, 4], [f.channels ?? 1, 4], [f.frameLengthFlag === true ? 1 : 0, 1], [0, 1], [0, 1]];
}

/** StreamMuxConfig fields, audioMuxVersion 0. */
export function muxConfigFields(f: MuxConfigFields = {}): BitField[] {
  const fields: BitField[] = [[0, 1], [1, 1], [(f.framesPerElement ?? 1) - 1, 6], [(f.programs ?? 1) - 1, 4], [0, 3], ...ascFields(f), [0, 3], [0xff, 8]];
  const other = f.otherDataBits ?? 0;
  if (other > 0) fields.push([1, 1], [0, 1], [other, 8]);
  else fields.push([0, 1]);
  fields.push([f.crc === true ? 1 : 0, 1]);
  if (f.crc === true) fields.push([0x5a, 8]);
  return fields;
}

/** The SDP `config=` of a StreamMuxConfig. */
export function muxConfigHex(f: MuxConfigFields = {}): string {
  return bits(muxConfigFields(f)).toString('hex');
}

/** PayloadLengthInfo: 255s and a final byte below 255. */
export function lengthInfo(size: number): BitField[] {
  const out: BitField[] = [];
  let left = size;
  while (left >= 255) {
    out.push([255, 8]);
    left -= 255;
  }
  out.push([left, 8]);
  return out;
}

/**
 * One audioMuxElement with `frames` (each preceded by its PayloadLengthInfo), `otherDataBits` zero bits after them,
 * byte-aligned. With `muxConfig` it opens with useSameStreamMux: 1 (same) when `muxConfig` is true, 0 and the config
 * when it is a list of fields.
 */
export function element(frames: Buffer[], opts: { muxConfig?: true | BitField[]; otherDataBits?: number } = {}): Buffer {
  const fields: BitField[] = [];
  if (opts.muxConfig === true) fields.push([1, 1]);
  else if (opts.muxConfig !== undefined) fields.push([0, 1], ...opts.muxConfig);
  for (const frame of frames) {
    fields.push(...lengthInfo(frame.length));
    for (const byte of frame) fields.push([byte, 8]);
  }
  if ((opts.otherDataBits ?? 0) > 0) fields.push([0, opts.otherDataBits as number]);
  return bits(fields);
}
