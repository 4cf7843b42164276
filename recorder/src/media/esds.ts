// MPEG-4 elementary stream descriptor (esds) and AAC AudioSpecificConfig decoding.

export interface EsdsInfo {
  /** DecoderConfigDescriptor objectTypeIndication (0x40 = MPEG-4 audio). */
  objectTypeIndication: number;
  /** DecoderSpecificInfo payload (for AAC: the AudioSpecificConfig). */
  decoderSpecificInfo?: Buffer;
}

export interface AudioSpecificConfig {
  audioObjectType: number;
  sampleRate?: number;
  /** From channelConfiguration; undefined when 0 (defined by a program config element). */
  channels?: number;
}

const SAMPLE_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
const CHANNELS_BY_CONFIG = [0, 1, 2, 3, 4, 5, 6, 8];

/** Reads an MPEG-4 descriptor tag + expandable length (1-4 bytes). */
function readDescriptor(buf: Buffer, offset: number): { tag: number; bodyStart: number; end: number } | undefined {
  if (offset + 2 > buf.length) return undefined;
  const tag = buf.readUInt8(offset);
  let length = 0;
  let pos = offset + 1;
  for (let i = 0; i < 4; i++) {
    if (pos >= buf.length) return undefined;
    const b = buf.readUInt8(pos++);
    length = (length << 7) | (b & 0x7f);
    if (!(b & 0x80)) break;
  }
  return { tag, bodyStart: pos, end: Math.min(pos + length, buf.length) };
}

/** Parses an esds payload (after the FullBox version/flags). Returns undefined when unreadable. */
export function parseEsds(payload: Buffer): EsdsInfo | undefined {
  const es = readDescriptor(payload, 0);
  if (!es || es.tag !== 0x03) return undefined;
  let pos = es.bodyStart + 2; // ES_ID
  if (pos >= es.end) return undefined;
  const flags = payload.readUInt8(pos++);
  if (flags & 0x80) pos += 2; // streamDependenceFlag -> dependsOn_ES_ID
  if (flags & 0x40) {
    if (pos >= es.end) return undefined;
    pos += 1 + payload.readUInt8(pos); // URL_Flag -> URLlength + URLstring
  }
  if (flags & 0x20) pos += 2; // OCRstreamFlag -> OCR_ES_Id
  const dcd = readDescriptor(payload, pos);
  if (!dcd || dcd.tag !== 0x04 || dcd.bodyStart + 13 > dcd.end) return undefined;
  const info: EsdsInfo = { objectTypeIndication: payload.readUInt8(dcd.bodyStart) };
  const dsi = readDescriptor(payload, dcd.bodyStart + 13); // after OTI, streamType, bufferSize, bitrates
  if (dsi && dsi.tag === 0x05 && dsi.bodyStart < dsi.end) info.decoderSpecificInfo = payload.subarray(dsi.bodyStart, dsi.end);
  return info;
}

/** MSB-first bit reader that returns undefined past the end. */
function bitReader(buf: Buffer): (n: number) => number | undefined {
  let bit = 0;
  return (n) => {
    if (bit + n > buf.length * 8) return undefined;
    let v = 0;
    for (let i = 0; i < n; i++, bit++) v = v * 2 + (((buf[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
    return v;
  };
}

/** Decodes the leading fields of an AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1). */
export function parseAudioSpecificConfig(asc: Buffer): AudioSpecificConfig | undefined {
  const read = bitReader(asc);
  let aot = read(5);
  if (aot === 31) {
    const ext = read(6);
    aot = ext === undefined ? undefined : 32 + ext;
  }
  if (aot === undefined) return undefined;
  const config: AudioSpecificConfig = { audioObjectType: aot };
  const sfi = read(4);
  const sampleRate = sfi === 15 ? read(24) : sfi === undefined ? undefined : SAMPLE_RATES[sfi];
  if (sampleRate) config.sampleRate = sampleRate;
  const channelConfig = sampleRate === undefined ? undefined : read(4);
  const channels = channelConfig === undefined ? undefined : CHANNELS_BY_CONFIG[channelConfig];
  if (channels) config.channels = channels;
  return config;
}
