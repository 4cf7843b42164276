// Init segment parsing: moov -> mvhd, trak (tkhd, mdhd, hdlr, stsd) and mvex/trex into TrackInfo.
import { BoxCursor, BoxFormatError, children, findChild, iterateBoxes, type BoxHeader } from './box-reader.js';
import type { InitSegment, TrackInfo } from './fmp4-types.js';
import { parseStsd } from './sample-entry.js';

interface TrexDefaults {
  defaultSampleDuration: number;
  defaultSampleFlags: number;
}

/** Parses an init segment held in `data` (ftyp + moov, or moov alone). Throws on malformed data. */
export function parseInitSegment(data: Buffer): InitSegment {
  let moov: BoxHeader | undefined;
  for (const box of iterateBoxes(data, 0, data.length)) {
    if (box.type === 'moov') moov = box;
  }
  if (!moov) throw new BoxFormatError('init segment has no moov box');
  const tracks = parseMoov(data, moov);
  const video = tracks.find((t) => t.handler === 'vide');
  return video ? { data, tracks, video } : { data, tracks };
}

/** Track list from a complete moov box. */
export function parseMoov(buf: Buffer, moov: BoxHeader): TrackInfo[] {
  const trex = new Map<number, TrexDefaults>();
  const mvex = findChild(buf, moov, 'mvex');
  if (mvex) {
    for (const box of children(buf, mvex)) {
      if (box.type !== 'trex') continue;
      const cur = BoxCursor.body(buf, box);
      cur.fullBox();
      const trackId = cur.u32();
      cur.skip(4); // default_sample_description_index
      const defaultSampleDuration = cur.u32();
      cur.skip(4); // default_sample_size
      const defaultSampleFlags = cur.u32();
      trex.set(trackId, { defaultSampleDuration, defaultSampleFlags });
    }
  }
  const tracks: TrackInfo[] = [];
  for (const box of children(buf, moov)) {
    if (box.type === 'trak') tracks.push(parseTrak(buf, box, trex));
  }
  return tracks;
}

function parseTrak(buf: Buffer, trak: BoxHeader, trex: Map<number, TrexDefaults>): TrackInfo {
  const tkhd = findChild(buf, trak, 'tkhd');
  if (!tkhd) throw new BoxFormatError('trak without tkhd');
  const header = parseTkhd(buf, tkhd);
  const mdia = findChild(buf, trak, 'mdia');
  const mdhd = mdia && findChild(buf, mdia, 'mdhd');
  const hdlr = mdia && findChild(buf, mdia, 'hdlr');
  const minf = mdia && findChild(buf, mdia, 'minf');
  const stbl = minf && findChild(buf, minf, 'stbl');
  const stsd = stbl && findChild(buf, stbl, 'stsd');
  const defaults = trex.get(header.trackId);
  const track: TrackInfo = {
    trackId: header.trackId,
    handler: hdlr ? parseHdlr(buf, hdlr) : '',
    timescale: mdhd ? parseMdhdTimescale(buf, mdhd) : 0,
    codec: '',
    sampleEntry: '',
    defaultSampleDuration: defaults?.defaultSampleDuration ?? 0,
    defaultSampleFlags: defaults?.defaultSampleFlags ?? 0,
  };
  if (stsd) {
    const entry = parseStsd(buf, stsd);
    track.codec = entry.codec;
    track.sampleEntry = entry.sampleEntry;
    if (entry.channels !== undefined) track.channels = entry.channels;
    if (entry.sampleRate !== undefined) track.sampleRate = entry.sampleRate;
    if (track.handler === 'vide' && entry.width && entry.height) {
      track.width = entry.width;
      track.height = entry.height;
    }
  }
  if (track.handler === 'vide' && track.width === undefined && header.width > 0 && header.height > 0) {
    track.width = header.width;
    track.height = header.height;
  }
  return track;
}

function parseTkhd(buf: Buffer, tkhd: BoxHeader): { trackId: number; width: number; height: number } {
  const cur = BoxCursor.body(buf, tkhd);
  const { version } = cur.fullBox();
  cur.skip(version === 1 ? 16 : 8); // creation_time, modification_time
  const trackId = cur.u32();
  cur.skip(4 + (version === 1 ? 8 : 4)); // reserved, duration
  cur.skip(8 + 2 + 2 + 2 + 2 + 36); // reserved, layer, alternate_group, volume, reserved, matrix
  const width = cur.u32() / 65536;
  const height = cur.u32() / 65536;
  return { trackId, width: Math.round(width), height: Math.round(height) };
}

function parseMdhdTimescale(buf: Buffer, mdhd: BoxHeader): number {
  const cur = BoxCursor.body(buf, mdhd);
  const { version } = cur.fullBox();
  cur.skip(version === 1 ? 16 : 8);
  return cur.u32();
}

function parseHdlr(buf: Buffer, hdlr: BoxHeader): string {
  const cur = BoxCursor.body(buf, hdlr);
  cur.fullBox();
  cur.skip(4); // pre_defined
  return cur.fourcc();
}
