// Whether fragments recorded under one init segment can be played under another: same tracks, clocks and codec setup.
import { children, findChild, readBoxHeader, type BoxHeader } from '../media/box-reader.js';
import type { InitSegment } from '../media/fmp4-types.js';

/**
 * A key that is equal for two init segments exactly when one's fragments decode under the other: the same track ids,
 * handlers and timescales, and byte-identical sample descriptions (stsd: codec, parameter sets, picture size, audio
 * config). Creation times and durations in mvhd/tkhd may differ (each segment file has its own).
 */
export function trackLayoutKey(init: InitSegment): string {
  const stsd = sampleDescriptions(init.data);
  return init.tracks.map((t) => `${t.trackId}/${t.handler}/${t.timescale}/${stsd.get(t.trackId) ?? ''}`).join('|');
}

/** stsd bytes (base64) per track id. */
function sampleDescriptions(data: Buffer): Map<number, string> {
  const out = new Map<number, string>();
  let moov: BoxHeader | undefined;
  for (let at = 0; at + 8 <= data.length; ) {
    const box = readBoxHeader(data, at, data.length);
    if (box === null || box.end > data.length) break;
    if (box.type === 'moov') moov = box;
    at = box.end;
  }
  if (moov === undefined) return out;
  for (const trak of children(data, moov)) {
    if (trak.type !== 'trak') continue;
    const tkhd = findChild(data, trak, 'tkhd');
    const mdia = findChild(data, trak, 'mdia');
    const minf = mdia && findChild(data, mdia, 'minf');
    const stbl = minf && findChild(data, minf, 'stbl');
    const stsd = stbl && findChild(data, stbl, 'stsd');
    if (tkhd === undefined || stsd === undefined) continue;
    const body = tkhd.start + tkhd.headerSize;
    const version = data[body] ?? 0;
    const trackId = data.readUInt32BE(body + 4 + (version === 1 ? 16 : 8));
    out.set(trackId, data.subarray(stsd.start, stsd.end).toString('base64'));
  }
  return out;
}
