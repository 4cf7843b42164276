// The times of one recorded fragment that playback steers by: its lead track's decode time and length, its earliest track.
import { readBoxHeader } from '../media/box-reader.js';
import { SAMPLE_IS_NON_SYNC, type InitSegment, type TrackInfo } from '../media/fmp4-types.js';
import { parseMoof } from '../media/moof-parser.js';

export interface FragmentTimes {
  /** The lead track's first sample is a sync sample (a keyframe). */
  keyframe: boolean;
  /** Decode time of the fragment in lead-track ticks (from another track's tfdt when the lead has no samples here). */
  decode: number;
  /** Lead-track ticks the fragment lasts (0 when it holds no lead samples). */
  duration: number;
  /** The earliest decode time of any of its tracks, in seconds. */
  earliestSeconds: number;
}

/** The track playback is steered by: the video, else the first track. */
export function leadTrack(init: InitSegment): TrackInfo | undefined {
  return init.video ?? init.tracks[0];
}

/** Undefined when the moof does not parse or names no decode time (no tfdt): such a fragment cannot be placed. */
export function fragmentTimes(moof: Buffer, offset: number, init: InitSegment, lead: TrackInfo): FragmentTimes | undefined {
  let parsed;
  try {
    const header = readBoxHeader(moof, 0, moof.length);
    if (header === null) return undefined;
    parsed = parseMoof(moof, header, init.tracks, offset);
  } catch {
    return undefined;
  }
  let earliest = Infinity;
  for (const traf of parsed.trafs) {
    const timescale = init.tracks.find((t) => t.trackId === traf.trackId)?.timescale ?? 0;
    if (traf.baseMediaDecodeTime !== undefined && timescale > 0) earliest = Math.min(earliest, traf.baseMediaDecodeTime / timescale);
  }
  if (!Number.isFinite(earliest)) return undefined;
  const traf = parsed.trafs.find((t) => t.trackId === lead.trackId && t.sampleCount > 0 && t.baseMediaDecodeTime !== undefined);
  if (traf === undefined) return { keyframe: false, decode: Math.round(earliest * lead.timescale), duration: 0, earliestSeconds: earliest };
  const keyframe = traf.firstSampleFlags !== undefined && (traf.firstSampleFlags & SAMPLE_IS_NON_SYNC) === 0;
  return { keyframe, decode: traf.baseMediaDecodeTime as number, duration: traf.durationTicks, earliestSeconds: earliest };
}
