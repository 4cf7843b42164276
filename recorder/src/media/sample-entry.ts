// Sample description parsing (stsd entries): codec string and video/audio dimensions per track.
import { BoxCursor, children, findChild, type BoxHeader } from './box-reader.js';
import { avcCodecString, hevcCodecString, mp4aCodecString } from './codec-string.js';
import { parseAudioSpecificConfig, parseEsds } from './esds.js';

export interface SampleEntryInfo {
  sampleEntry: string;
  codec: string;
  width?: number;
  height?: number;
  channels?: number;
  sampleRate?: number;
}

const VISUAL_ENTRY_FIELDS = 78; // SampleEntry (8) + VisualSampleEntry fields (70)
const AUDIO_ENTRY_FIELDS = 28; // SampleEntry (8) + AudioSampleEntry fields (20)

const VISUAL_TYPES = new Set(['avc1', 'avc3', 'hvc1', 'hev1', 'av01', 'vp08', 'vp09', 'mp4v', 'encv']);
const AUDIO_TYPES = new Set(['mp4a', 'Opus', 'fLaC', 'ac-3', 'ec-3', 'alaw', 'ulaw', 'enca']);

/** Parses the first entry of an stsd box (payload: version/flags, entry_count, then entries as boxes). */
export function parseStsd(buf: Buffer, stsd: BoxHeader): SampleEntryInfo {
  const cur = BoxCursor.body(buf, stsd);
  cur.fullBox();
  const count = cur.u32();
  if (count === 0) return { sampleEntry: '', codec: '' };
  for (const entry of children(buf, stsd, 8)) return parseSampleEntry(buf, entry);
  return { sampleEntry: '', codec: '' };
}

export function parseSampleEntry(buf: Buffer, entry: BoxHeader): SampleEntryInfo {
  const type = entry.type;
  if (VISUAL_TYPES.has(type)) return parseVisualEntry(buf, entry);
  if (AUDIO_TYPES.has(type)) return parseAudioEntry(buf, entry);
  return { sampleEntry: type, codec: '' };
}

function parseVisualEntry(buf: Buffer, entry: BoxHeader): SampleEntryInfo {
  const cur = BoxCursor.body(buf, entry);
  cur.skip(8 + 16); // SampleEntry reserved + data_reference_index, pre_defined/reserved
  const width = cur.u16();
  const height = cur.u16();
  const info: SampleEntryInfo = { sampleEntry: entry.type, codec: '', width, height };
  if (entry.headerSize + VISUAL_ENTRY_FIELDS > entry.size) return info;
  const skip = VISUAL_ENTRY_FIELDS;
  if (entry.type === 'avc1' || entry.type === 'avc3') {
    const avcC = findChild(buf, entry, 'avcC', skip);
    if (avcC) info.codec = avcCodecString(payload(buf, avcC), entry.type);
  } else if (entry.type === 'hvc1' || entry.type === 'hev1') {
    const hvcC = findChild(buf, entry, 'hvcC', skip);
    if (hvcC) info.codec = hevcCodecString(payload(buf, hvcC), entry.type);
  }
  return info;
}

function parseAudioEntry(buf: Buffer, entry: BoxHeader): SampleEntryInfo {
  const cur = BoxCursor.body(buf, entry);
  cur.skip(8); // SampleEntry
  const qtVersion = cur.u16(); // reserved in ISO; QuickTime sound description version
  cur.skip(6);
  const channels = cur.u16();
  cur.skip(6); // samplesize, pre_defined, reserved
  const sampleRate = cur.u32() >>> 16;
  const info: SampleEntryInfo = { sampleEntry: entry.type, codec: '', channels, sampleRate };
  const skip = AUDIO_ENTRY_FIELDS + (qtVersion === 1 ? 16 : qtVersion === 2 ? 36 : 0);
  if (entry.headerSize + skip > entry.size) return info;
  if (entry.type === 'mp4a') {
    const esds = findChild(buf, entry, 'esds', skip);
    if (esds) {
      const esdsPayload = payload(buf, esds).subarray(4);
      info.codec = mp4aCodecString(esdsPayload);
      // The sample entry's channelcount/samplerate are often template values (ffmpeg writes 2 channels
      // for mono AAC); the AudioSpecificConfig is authoritative.
      const dsi = parseEsds(esdsPayload)?.decoderSpecificInfo;
      const asc = dsi && info.codec.startsWith('mp4a.40') ? parseAudioSpecificConfig(dsi) : undefined;
      if (asc?.channels) info.channels = asc.channels;
      if (asc?.sampleRate) info.sampleRate = asc.sampleRate;
    }
  } else if (entry.type === 'Opus') {
    info.codec = 'opus';
  } else if (entry.type === 'fLaC') {
    info.codec = 'flac';
  } else if (entry.type === 'ac-3' || entry.type === 'ec-3') {
    info.codec = entry.type;
  }
  return info;
}

function payload(buf: Buffer, box: BoxHeader): Buffer {
  return buf.subarray(box.start + box.headerSize, box.end);
}
