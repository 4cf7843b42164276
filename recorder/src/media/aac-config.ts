// AAC setup for mp4: the esds descriptor chain around an AudioSpecificConfig, and building an AudioSpecificConfig.

/** ISO/IEC 14496-3 Table 1.18 sampling frequencies, indexed by samplingFrequencyIndex. */
const SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

const ES_DESCRIPTOR = 0x03;
const DECODER_CONFIG_DESCRIPTOR = 0x04;
const DECODER_SPECIFIC_INFO = 0x05;
const SL_CONFIG_DESCRIPTOR = 0x06;
const OBJECT_TYPE_MPEG4_AUDIO = 0x40;
const STREAM_TYPE_AUDIO = 0x05;
/** Largest AAC frame, 6144 bits per channel (14496-3 4.5.3.2): the decoder buffer size we announce. */
const MAX_FRAME_BYTES_PER_CHANNEL = 768;

/**
 * A 2-byte AudioSpecificConfig (or 5 bytes for a rate outside the index table): audioObjectType
 * (2 = AAC LC), sampling frequency, channelConfiguration. For sources that give the parameters, not
 * the config bytes (ADTS headers, an SDP without `config=`).
 */
export function buildAudioSpecificConfig(audioObjectType: number, sampleRate: number, channels: number): Buffer {
  if (audioObjectType < 1 || audioObjectType > 30) throw new RangeError(`audioObjectType ${audioObjectType}`);
  if (channels < 1 || channels > 7) throw new RangeError(`channelConfiguration ${channels}`);
  const index = SAMPLE_RATES.indexOf(sampleRate);
  if (index >= 0) {
    const v = (audioObjectType << 11) | (index << 7) | (channels << 3);
    return Buffer.from([v >> 8, v & 0xff]);
  }
  // Escape index 15 with a 24-bit explicit rate: 5 + 4 + 24 + 4 bits = 37, padded to 5 bytes.
  const bits = (BigInt(audioObjectType) << 35n) | (15n << 31n) | (BigInt(sampleRate) << 7n) | (BigInt(channels) << 3n);
  const out = Buffer.alloc(5);
  for (let i = 0; i < 5; i++) out[i] = Number((bits >> BigInt(8 * (4 - i))) & 0xffn);
  return out;
}

/** One descriptor: tag, size in the expandable 7-bits-per-byte form, payload. */
function descriptor(tag: number, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const size: number[] = [body.length & 0x7f];
  for (let n = body.length >> 7; n > 0; n >>= 7) size.unshift(0x80 | (n & 0x7f));
  if (size.length > 4) throw new RangeError('descriptor larger than 2^28 bytes');
  return Buffer.concat([Buffer.from([tag, ...size]), body]);
}

/**
 * The esds box payload after its FullBox version/flags (ISO/IEC 14496-1 7.2.6.5): an ES_Descriptor
 * holding a DecoderConfigDescriptor (MPEG-4 audio, audio stream) with the AudioSpecificConfig as its
 * DecoderSpecificInfo, and the predefined MP4 SLConfigDescriptor.
 */
export function buildEsdsPayload(audioSpecificConfig: Buffer, opts: { esId?: number; channels?: number; avgBitrate?: number } = {}): Buffer {
  const decoderConfig = Buffer.alloc(13);
  decoderConfig.writeUInt8(OBJECT_TYPE_MPEG4_AUDIO, 0);
  decoderConfig.writeUInt8((STREAM_TYPE_AUDIO << 2) | 0x01, 1); // upStream 0, reserved 1
  decoderConfig.writeUIntBE(MAX_FRAME_BYTES_PER_CHANNEL * (opts.channels ?? 2), 2, 3); // bufferSizeDB
  // maxBitrate / avgBitrate: 0 means unknown; a live source cannot know them up front.
  decoderConfig.writeUInt32BE(opts.avgBitrate ?? 0, 5);
  decoderConfig.writeUInt32BE(opts.avgBitrate ?? 0, 9);
  const esHeader = Buffer.alloc(3);
  esHeader.writeUInt16BE(opts.esId ?? 0, 0);
  esHeader.writeUInt8(0, 2); // no dependsOn, URL or OCR stream; priority 0
  return descriptor(
    ES_DESCRIPTOR,
    esHeader,
    descriptor(DECODER_CONFIG_DESCRIPTOR, decoderConfig, descriptor(DECODER_SPECIFIC_INFO, audioSpecificConfig)),
    descriptor(SL_CONFIG_DESCRIPTOR, Buffer.from([0x02])), // predefined: reserved for use in MP4 files
  );
}
