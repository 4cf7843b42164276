// Movie fragment parsing: moof -> mfhd, traf (tfhd, tfdt, trun) and the per-fragment video summary.
import { BoxCursor, children, type BoxHeader } from './box-reader.js';
import { SAMPLE_IS_NON_SYNC, type ParsedMoof, type TrackFragmentInfo, type TrackInfo } from './fmp4-types.js';

// tfhd flags
const TFHD_BASE_DATA_OFFSET = 0x000001;
const TFHD_SAMPLE_DESCRIPTION_INDEX = 0x000002;
const TFHD_DEFAULT_SAMPLE_DURATION = 0x000008;
const TFHD_DEFAULT_SAMPLE_SIZE = 0x000010;
const TFHD_DEFAULT_SAMPLE_FLAGS = 0x000020;
const TFHD_DURATION_IS_EMPTY = 0x010000;
const TFHD_DEFAULT_BASE_IS_MOOF = 0x020000;
// trun flags
const TRUN_DATA_OFFSET = 0x000001;
const TRUN_FIRST_SAMPLE_FLAGS = 0x000004;
const TRUN_SAMPLE_DURATION = 0x000100;
const TRUN_SAMPLE_SIZE = 0x000200;
const TRUN_SAMPLE_FLAGS = 0x000400;
const TRUN_SAMPLE_CTO = 0x000800;

interface Tfhd {
  trackId: number;
  /** Explicit base-data-offset relative to the moof start, when present. */
  baseDataOffsetFromMoof?: number;
  defaultSampleDuration?: number;
  defaultSampleSize?: number;
  defaultSampleFlags?: number;
  durationIsEmpty: boolean;
  defaultBaseIsMoof: boolean;
}

/**
 * Parses a complete moof box held in `buf`. `moofFileOffset` is the moof's offset in its stream or
 * file (used to express tfhd base-data-offset relative to the moof). `tracks` supplies trex defaults.
 */
export function parseMoof(buf: Buffer, moof: BoxHeader, tracks: readonly TrackInfo[], moofFileOffset = 0): ParsedMoof {
  let sequenceNumber = 0;
  const trafs: TrackFragmentInfo[] = [];
  let previousDataEnd: number | undefined = 0; // ISO rule: implicit base of the first traf is the moof
  for (const box of children(buf, moof)) {
    if (box.type === 'mfhd') {
      const cur = BoxCursor.body(buf, box);
      cur.fullBox();
      sequenceNumber = cur.u32();
    } else if (box.type === 'traf') {
      const traf = parseTraf(buf, box, tracks, moofFileOffset, previousDataEnd);
      trafs.push(traf);
      if (traf.dataEndFromMoof !== undefined) previousDataEnd = traf.dataEndFromMoof;
    }
  }
  return { sequenceNumber, trafs };
}

function parseTraf(
  buf: Buffer,
  traf: BoxHeader,
  tracks: readonly TrackInfo[],
  moofFileOffset: number,
  implicitBase: number | undefined,
): TrackFragmentInfo {
  let tfhd: Tfhd | undefined;
  let baseMediaDecodeTime: number | undefined;
  const truns: BoxHeader[] = [];
  for (const box of children(buf, traf)) {
    if (box.type === 'tfhd') tfhd = parseTfhd(buf, box, moofFileOffset);
    else if (box.type === 'tfdt') baseMediaDecodeTime = parseTfdt(buf, box);
    else if (box.type === 'trun') truns.push(box);
  }
  if (!tfhd) throw new Error('traf without tfhd');
  const trackId = tfhd.trackId;
  const track = tracks.find((t) => t.trackId === trackId);
  const defaultDuration = tfhd.defaultSampleDuration ?? track?.defaultSampleDuration ?? 0;
  const defaultFlags = tfhd.defaultSampleFlags ?? track?.defaultSampleFlags ?? 0;
  const info: TrackFragmentInfo = {
    trackId,
    baseMediaDecodeTime,
    sampleCount: 0,
    durationTicks: 0,
    firstSampleFlags: undefined,
    dataEndFromMoof: undefined,
  };
  // Base for data offsets: explicit base-data-offset, else the moof (default-base-is-moof), else the
  // end of the previous traf's data (the moof for the first traf). Truns without data_offset continue
  // where the previous trun ended.
  const base = tfhd.baseDataOffsetFromMoof ?? (tfhd.defaultBaseIsMoof ? 0 : implicitBase);
  let dataEnd: number | undefined = base === undefined ? undefined : 0;
  let cursor = base ?? 0;
  for (const trun of truns) {
    const r = parseTrun(buf, trun, defaultDuration, defaultFlags, tfhd.defaultSampleSize);
    if (r.sampleCount > 0 && info.firstSampleFlags === undefined) info.firstSampleFlags = r.firstFlags;
    info.sampleCount += r.sampleCount;
    info.durationTicks += r.durationTicks;
    const start = r.dataOffset !== undefined ? (base ?? 0) + r.dataOffset : cursor;
    if (r.totalSize === undefined || dataEnd === undefined) dataEnd = undefined;
    else {
      cursor = start + r.totalSize;
      dataEnd = Math.max(dataEnd, cursor);
    }
  }
  if (tfhd.durationIsEmpty && info.sampleCount === 0) info.durationTicks = 0;
  info.dataEndFromMoof = info.sampleCount > 0 ? dataEnd : undefined;
  return info;
}

function parseTfhd(buf: Buffer, box: BoxHeader, moofFileOffset: number): Tfhd {
  const cur = BoxCursor.body(buf, box);
  const { flags } = cur.fullBox();
  const tfhd: Tfhd = {
    trackId: cur.u32(),
    durationIsEmpty: (flags & TFHD_DURATION_IS_EMPTY) !== 0,
    defaultBaseIsMoof: (flags & TFHD_DEFAULT_BASE_IS_MOOF) !== 0,
  };
  if (flags & TFHD_BASE_DATA_OFFSET) tfhd.baseDataOffsetFromMoof = cur.u64() - moofFileOffset;
  if (flags & TFHD_SAMPLE_DESCRIPTION_INDEX) cur.skip(4);
  if (flags & TFHD_DEFAULT_SAMPLE_DURATION) tfhd.defaultSampleDuration = cur.u32();
  if (flags & TFHD_DEFAULT_SAMPLE_SIZE) tfhd.defaultSampleSize = cur.u32();
  if (flags & TFHD_DEFAULT_SAMPLE_FLAGS) tfhd.defaultSampleFlags = cur.u32();
  return tfhd;
}

function parseTfdt(buf: Buffer, box: BoxHeader): number {
  const cur = BoxCursor.body(buf, box);
  const { version } = cur.fullBox();
  return version === 1 ? cur.u64() : cur.u32();
}

interface TrunSummary {
  sampleCount: number;
  durationTicks: number;
  firstFlags: number;
  dataOffset: number | undefined;
  /** Sum of sample sizes, undefined when sizes are neither per-sample nor defaulted. */
  totalSize: number | undefined;
}

function parseTrun(
  buf: Buffer,
  box: BoxHeader,
  defaultDuration: number,
  defaultFlags: number,
  defaultSize: number | undefined,
): TrunSummary {
  const cur = BoxCursor.body(buf, box);
  const { flags } = cur.fullBox();
  const sampleCount = cur.u32();
  const dataOffset = flags & TRUN_DATA_OFFSET ? cur.i32() : undefined;
  const firstSampleFlags = flags & TRUN_FIRST_SAMPLE_FLAGS ? cur.u32() : undefined;
  const hasDuration = (flags & TRUN_SAMPLE_DURATION) !== 0;
  const hasSize = (flags & TRUN_SAMPLE_SIZE) !== 0;
  const hasFlags = (flags & TRUN_SAMPLE_FLAGS) !== 0;
  const hasCto = (flags & TRUN_SAMPLE_CTO) !== 0;
  const perSample = 4 * (Number(hasDuration) + Number(hasSize) + Number(hasFlags) + Number(hasCto));
  cur.need(perSample * sampleCount); // rejects absurd sample counts before looping
  let durationTicks = hasDuration ? 0 : defaultDuration * sampleCount;
  let totalSize: number | undefined = hasSize ? 0 : defaultSize === undefined ? undefined : defaultSize * sampleCount;
  let firstFlags = firstSampleFlags ?? defaultFlags;
  for (let i = 0; i < sampleCount; i++) {
    if (hasDuration) durationTicks += cur.u32();
    if (hasSize) totalSize = (totalSize ?? 0) + cur.u32();
    if (hasFlags) {
      const f = cur.u32();
      if (i === 0 && firstSampleFlags === undefined) firstFlags = f;
    }
    if (hasCto) cur.skip(4);
  }
  return { sampleCount, durationTicks, firstFlags, dataOffset, totalSize };
}

export interface FragmentSummary {
  keyframe: boolean;
  decodeTime: number;
  duration: number;
  sampleCount: number;
}

/** Keyframe/time summary of a fragment for the video track (or the first track when there is no video). */
export function summarizeFragment(moof: ParsedMoof, tracks: readonly TrackInfo[], video: TrackInfo | undefined): FragmentSummary {
  const track = video ?? tracks[0];
  const traf = track ? moof.trafs.find((t) => t.trackId === track.trackId) : moof.trafs[0];
  if (!traf) return { keyframe: false, decodeTime: NaN, duration: 0, sampleCount: 0 };
  const timescale = track?.timescale ?? 0;
  const keyframe = traf.firstSampleFlags !== undefined && (traf.firstSampleFlags & SAMPLE_IS_NON_SYNC) === 0;
  const decodeTime = traf.baseMediaDecodeTime !== undefined && timescale > 0 ? traf.baseMediaDecodeTime / timescale : NaN;
  const duration = timescale > 0 ? traf.durationTicks / timescale : 0;
  return { keyframe, decodeTime, duration, sampleCount: traf.sampleCount };
}
