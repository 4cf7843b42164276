// MPEG-4 AudioSpecificConfig (ISO 14496-3 §1.6.2.1): the AAC facts a muxer needs, from SDP bytes or from inside a LATM StreamMuxConfig.
import { BitCursor, BitsExhaustedError } from './bit-cursor.js';
import { UnsupportedPayloadError, type AacConfig } from './depacketizer.js';

const SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
/** Channel configuration → channels; 0 means "see the program config element", which we do not read. */
const CHANNELS = [0, 1, 2, 3, 4, 5, 6, 8];
/** Object types whose config is a GASpecificConfig (AAC main/LC/SSR/LTP, scalable, TwinVQ, and their ER forms, ER BSAC, ER AAC-LD). */
const GA_OBJECT_TYPES = new Set([1, 2, 3, 4, 6, 7, 17, 19, 20, 21, 22, 23]);
/** Error-resilient object types: an epConfig follows the codec-specific config. */
const ER_OBJECT_TYPES = new Set([17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 39]);
const AAC_LD = 23;

/** An AudioSpecificConfig read from a bit position: the facts, and where it ended. */
export interface PlacedAudioSpecificConfig {
  config: AacConfig;
  /** The bit after the config's last bit. */
  endBit: number;
}

/**
 * Reads an AudioSpecificConfig at `cursor`. `strict` reads all of the GASpecificConfig, so the config's end is exact
 * (a LATM StreamMuxConfig of audioMuxVersion 0 says nowhere how long it is, and what follows it matters); otherwise
 * only up to the frameLengthFlag, and only if the bytes hold it (an SDP `config=` of an MPEG4-GENERIC track is the
 * config alone). The returned `audioSpecificConfig` is the config's own bits, byte-aligned. `label` names the source in
 * errors. Throws UnsupportedPayloadError for a config a muxer cannot use or that is cut off.
 */
export function readAudioSpecificConfig(cursor: BitCursor, label: string, strict: boolean): PlacedAudioSpecificConfig {
  const start = cursor.position;
  try {
    const objectTypeAt = (): number => {
      const type = cursor.read(5);
      return type === 31 ? 32 + cursor.read(6) : type;
    };
    const sampleRate = (): number => {
      const index = cursor.read(4);
      const rate = index === 15 ? cursor.read(24) : SAMPLE_RATES[index];
      if (rate === undefined || rate === 0) throw new UnsupportedPayloadError(`${label} (sampling frequency index ${index})`);
      return rate;
    };
    const objectType = objectTypeAt();
    const rate = sampleRate();
    const channelConfig = cursor.read(4);
    const channels = CHANNELS[channelConfig];
    if (channels === undefined || channels === 0) throw new UnsupportedPayloadError(`${label} (channel configuration ${channelConfig})`);
    let coreType = objectType;
    // Explicit SBR/PS signalling: the extension rate, then the core object type whose config follows.
    if (objectType === 5 || objectType === 29) {
      sampleRate();
      coreType = objectTypeAt();
      if (coreType === 22) cursor.read(4); // extensionChannelConfiguration
    }
    let frameLengthFlag = false;
    if (strict) {
      if (!GA_OBJECT_TYPES.has(coreType)) throw new UnsupportedPayloadError(`${label} (audio object type ${coreType})`);
      frameLengthFlag = readGaSpecificConfig(cursor, coreType);
      if (ER_OBJECT_TYPES.has(coreType)) {
        const epConfig = cursor.read(2);
        if (epConfig === 2 || epConfig === 3) throw new UnsupportedPayloadError(`${label} (error protection epConfig ${epConfig})`);
      }
    } else if (GA_OBJECT_TYPES.has(coreType) && cursor.bitsLeft > 0) {
      frameLengthFlag = cursor.flag();
    }
    const frameLength = coreType === AAC_LD ? (frameLengthFlag ? 480 : 512) : frameLengthFlag ? 960 : 1024;
    const endBit = cursor.position;
    return {
      config: { codec: 'aac', audioSpecificConfig: cursor.copyBits(start, endBit), objectType, sampleRate: rate, channels, frameLength },
      endBit,
    };
  } catch (err) {
    if (err instanceof BitsExhaustedError) throw new UnsupportedPayloadError(`${label} (cut off)`);
    throw err;
  }
}

/** GASpecificConfig (§4.4.1) with a channel configuration other than 0; returns the frameLengthFlag. */
function readGaSpecificConfig(cursor: BitCursor, objectType: number): boolean {
  const frameLengthFlag = cursor.flag();
  if (cursor.flag()) cursor.skip(14); // dependsOnCoreCoder → coreCoderDelay
  const extensionFlag = cursor.flag();
  if (objectType === 6 || objectType === 20) cursor.skip(3); // layerNr
  if (extensionFlag) {
    if (objectType === 22) cursor.skip(5 + 11); // numOfSubFrame, layer_length
    if (objectType === 17 || objectType === 19 || objectType === 20 || objectType === 23) cursor.skip(3); // the three resilience flags
    cursor.skip(1); // extensionFlag3
  }
  return frameLengthFlag;
}

/** Reads the AudioSpecificConfig of an MPEG4-GENERIC SDP `config=` (hex, as bytes). */
export function parseAudioSpecificConfig(asc: Buffer): AacConfig {
  const { config } = readAudioSpecificConfig(new BitCursor(asc), `MPEG4-GENERIC config=${asc.toString('hex')}`, false);
  // The bytes as the camera gave them: a decoder may want bits after the core config (a sync extension).
  return { ...config, audioSpecificConfig: asc };
}
