// Test support: where each track of an fMP4 fragment starts and ends in media time, and whether a run of fragments chains.
import { readBoxHeader } from '../../src/media/box-reader.js';
import type { TrackInfo } from '../../src/media/fmp4-types.js';
import { parseMoof } from '../../src/media/moof-parser.js';

/** One track's part of a fragment, in the track's timescale. */
export interface TrackSpan {
  trackId: number;
  start: number;
  end: number;
  samples: number;
}

/** The tracks of a fragment (moof + mdat, as one message or one hub fragment) with their decode-time spans. */
export function fragmentSpans(fragment: Buffer, tracks: readonly TrackInfo[]): TrackSpan[] {
  const moof = readBoxHeader(fragment, 0);
  if (moof === null || moof.type !== 'moof') throw new Error(`a fragment starts with a moof, not ${moof?.type ?? 'nothing'}`);
  return parseMoof(fragment, moof, tracks).trafs.map((traf) => {
    if (traf.baseMediaDecodeTime === undefined) throw new Error(`track ${traf.trackId} has no tfdt`);
    return { trackId: traf.trackId, start: traf.baseMediaDecodeTime, end: traf.baseMediaDecodeTime + traf.durationTicks, samples: traf.sampleCount };
  });
}

/**
 * Per track, where a fragment's run did not start exactly where the track's previous run ended: each break with its
 * size in ticks (positive: a gap, negative: an overlap). Empty when everything chains.
 */
export function chainBreaks(fragments: readonly Buffer[], tracks: readonly TrackInfo[]): Array<{ fragment: number; trackId: number; ticks: number }> {
  const ends = new Map<number, number>();
  const breaks: Array<{ fragment: number; trackId: number; ticks: number }> = [];
  fragments.forEach((data, index) => {
    for (const span of fragmentSpans(data, tracks)) {
      const end = ends.get(span.trackId);
      if (end !== undefined && span.start !== end) breaks.push({ fragment: index, trackId: span.trackId, ticks: span.start - end });
      ends.set(span.trackId, span.end);
    }
  });
  return breaks;
}
