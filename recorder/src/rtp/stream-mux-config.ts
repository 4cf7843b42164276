// LATM StreamMuxConfig (ISO 14496-3 §1.7.3): one program, one layer of AAC — the shape cameras and encoders send as MP4A-LATM.
import { BitCursor, BitsExhaustedError } from './bit-cursor.js';
import { readAudioSpecificConfig } from './audio-specific-config.js';
import { UnsupportedPayloadError, type AacConfig } from './depacketizer.js';

export interface StreamMuxConfig {
  audioMuxVersion: 0 | 1;
  /** AAC frames (subframes) in each audioMuxElement: numSubFrames + 1. */
  framesPerElement: number;
  /** The AAC track's config; `audioSpecificConfig` is byte-aligned, as an esds carries it. */
  aac: AacConfig;
  /** Bits of "other data" after the payload of each audioMuxElement (skipped). */
  otherDataBits: number;
  /** Whether a CRC byte closes the config (it is skipped; nothing here checks it). */
  crcPresent: boolean;
}

/** LatmGetValue(): bytesForValue (2 bits), then that many bytes plus one. */
function latmValue(cursor: BitCursor): number {
  const bytes = cursor.read(2);
  let value = 0;
  for (let i = 0; i <= bytes; i++) value = value * 256 + cursor.read(8);
  return value;
}

/**
 * Reads a StreamMuxConfig at `cursor` (moving it past the config). Only what every MP4A-LATM sender we know writes is
 * accepted — audioMuxVersionA 0, allStreamsSameTimeFraming, one program with one layer, frameLengthType 0 (sizes in
 * PayloadLengthInfo) — anything else throws UnsupportedPayloadError naming it. `label` names the source in errors.
 */
export function readStreamMuxConfig(cursor: BitCursor, label: string): StreamMuxConfig {
  try {
    const audioMuxVersion = cursor.read(1) as 0 | 1;
    const audioMuxVersionA = audioMuxVersion === 1 ? cursor.read(1) : 0;
    if (audioMuxVersionA !== 0) throw new UnsupportedPayloadError(`${label} (audioMuxVersionA 1)`);
    if (audioMuxVersion === 1) latmValue(cursor); // taraBufferFullness
    const sameTimeFraming = cursor.flag();
    const framesPerElement = cursor.read(6) + 1;
    const programs = cursor.read(4) + 1;
    const layers = cursor.read(3) + 1;
    if (!sameTimeFraming || programs !== 1 || layers !== 1) {
      throw new UnsupportedPayloadError(`${label} (${programs} programs, ${layers} layers, allStreamsSameTimeFraming ${sameTimeFraming ? 1 : 0})`);
    }
    let aac: AacConfig;
    if (audioMuxVersion === 0) {
      aac = readAudioSpecificConfig(cursor, label, true).config;
    } else {
      // Version 1 states the config's length; what the config does not use of it is fill.
      const length = latmValue(cursor);
      const start = cursor.position;
      const placed = readAudioSpecificConfig(new BitCursor(cursor.copyBits(start, start + length)), label, true);
      aac = placed.config;
      cursor.skip(length);
    }
    // GStreamer's rtpmp4apay cuts its SDP config off right after the AudioSpecificConfig: what is missing is taken
    // as the usual values (sizes in PayloadLengthInfo, no other data, no CRC), as ffmpeg's reader does.
    if (cursor.bitsLeft < 3) return { audioMuxVersion, framesPerElement, aac, otherDataBits: 0, crcPresent: false };
    const frameLengthType = cursor.read(3);
    if (frameLengthType !== 0) throw new UnsupportedPayloadError(`${label} (frameLengthType ${frameLengthType})`);
    if (cursor.bitsLeft < 8) return { audioMuxVersion, framesPerElement, aac, otherDataBits: 0, crcPresent: false };
    cursor.skip(8); // latmBufferFullness
    let otherDataBits = 0;
    if (cursor.bitsLeft > 0 && cursor.flag()) {
      if (audioMuxVersion === 1) otherDataBits = latmValue(cursor);
      else {
        let escape = true;
        while (escape) {
          escape = cursor.flag();
          otherDataBits = otherDataBits * 256 + cursor.read(8);
        }
      }
    }
    const crcPresent = cursor.bitsLeft > 0 && cursor.flag();
    if (crcPresent) cursor.skip(8);
    return { audioMuxVersion, framesPerElement, aac, otherDataBits, crcPresent };
  } catch (err) {
    if (err instanceof BitsExhaustedError) throw new UnsupportedPayloadError(`${label} (cut off)`);
    throw err;
  }
}

/** The StreamMuxConfig of an SDP `config=` (hex). */
export function parseStreamMuxConfig(hex: string): StreamMuxConfig {
  const label = `MP4A-LATM config=${hex}`;
  if (!/^([0-9a-f]{2})+$/i.test(hex)) throw new UnsupportedPayloadError(label);
  return readStreamMuxConfig(new BitCursor(Buffer.from(hex, 'hex')), label);
}
