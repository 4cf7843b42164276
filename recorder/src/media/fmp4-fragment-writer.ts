// fMP4 media fragment writing: one moof + mdat Buffer per FragmentInput, sized first, allocated once, sample data copied once.
import { fourccCode, writeBoxHeader, writeFullBoxHeader } from './box-writer.js';
import { AUDIO_TRACK_ID, VIDEO_TRACK_ID, type FragmentInput, type TrackRun } from './fmp4-muxer-types.js';
import type { MediaFragment } from './fmp4-types.js';

const MOOF = fourccCode('moof');
const MFHD = fourccCode('mfhd');
const TRAF = fourccCode('traf');
const TFHD = fourccCode('tfhd');
const TFDT = fourccCode('tfdt');
const TRUN = fourccCode('trun');
const MDAT = fourccCode('mdat');

const TFHD_DEFAULT_SAMPLE_FLAGS = 0x000020;
const TFHD_DEFAULT_BASE_IS_MOOF = 0x020000;
const TRUN_DATA_OFFSET = 0x000001;
const TRUN_SAMPLE_DURATION = 0x000100;
const TRUN_SAMPLE_SIZE = 0x000200;
const TRUN_SAMPLE_FLAGS = 0x000400;
const TRUN_SAMPLE_CTO = 0x000800;

/** sample_depends_on = 2 (depends on no other sample): an IDR picture, or any audio frame. */
const FLAGS_SYNC = 0x02000000;
/** sample_depends_on = 1 | sample_is_non_sync_sample. */
const FLAGS_NON_SYNC = 0x01010000;

const DEFAULT_VIDEO_TIMESCALE = 90000;
const MOOF_FIXED = 8 + 16; // moof header + mfhd
const TRAF_FIXED = 8 + 20; // traf header + tfdt v1
const NAL_LENGTH_BYTES = 4;
const MAX_U32 = 0xffffffff;

/** Byte counts of one track's part of a fragment. */
interface RunLayout {
  trafSize: number;
  trunSize: number;
  dataSize: number;
  /** 0: no composition offsets; 1: unsigned (trun v0); 2: some negative (trun v1). */
  cto: 0 | 1 | 2;
}

function layout(run: TrackRun, video: boolean): RunLayout {
  let dataSize = 0;
  let cto: 0 | 1 | 2 = 0;
  for (const sample of run.samples) {
    for (const part of sample.parts) dataSize += video ? NAL_LENGTH_BYTES + part.length : part.length;
    const offset = sample.compositionOffset;
    if (offset !== undefined && offset < 0) cto = 2;
    else if (offset !== undefined && offset > 0 && cto === 0) cto = 1;
  }
  // trun bytes per sample: duration, size, [flags], [composition offset]. Video writes per-sample
  // flags; audio frames are all sync samples, so one tfhd default covers them.
  const perSample = (video ? 12 : 8) + (cto > 0 ? 4 : 0);
  const tfhdSize = video ? 16 : 20;
  const trunSize = 12 + 4 + 4 + perSample * run.samples.length;
  return { trafSize: TRAF_FIXED + tfhdSize + trunSize, trunSize, dataSize, cto };
}

function present(run: TrackRun | undefined): run is TrackRun {
  return run !== undefined && run.samples.length > 0;
}

/** Total bytes buildFragment will produce for `input` (moof + mdat). */
export function fragmentSize(input: FragmentInput): number {
  let size = MOOF_FIXED + 8;
  if (present(input.video)) {
    const l = layout(input.video, true);
    size += l.trafSize + l.dataSize;
  }
  if (present(input.audio)) {
    const l = layout(input.audio, false);
    size += l.trafSize + l.dataSize;
  }
  return size;
}

/**
 * One fragment: moof (mfhd, a traf per track with samples, video first) then one mdat holding the
 * video samples (each NAL unit behind a 4-byte length) and then the audio frames. Offsets in the trun
 * are relative to the moof (default-base-is-moof), so the fragment can be written anywhere and its
 * tfdt patched (rebaseFragment) without touching anything else. `allocate` gives the fragment's memory (a
 * SlabAllocator's `take` for a stream of them).
 */
export function buildFragment(input: FragmentInput, allocate: (bytes: number) => Buffer = Buffer.allocUnsafe): MediaFragment {
  const video = present(input.video) ? input.video : undefined;
  const audio = present(input.audio) ? input.audio : undefined;
  // The run whose times the MediaFragment reports, as the parser would: video when there is any.
  const lead = video ?? audio;
  if (!lead) throw new RangeError('a fragment needs at least one video or audio sample');
  const timescale = video ? (video.timescale ?? DEFAULT_VIDEO_TIMESCALE) : lead.timescale;
  if (!timescale || timescale <= 0) throw new RangeError('an audio-only fragment needs audio.timescale (the sample rate) for its times');
  const v = video && layout(video, true);
  const a = audio && layout(audio, false);
  const moofSize = MOOF_FIXED + (v ? v.trafSize : 0) + (a ? a.trafSize : 0);
  const mdatSize = 8 + (v ? v.dataSize : 0) + (a ? a.dataSize : 0);
  if (mdatSize > MAX_U32) throw new RangeError(`fragment data of ${mdatSize} bytes does not fit a 32-bit mdat`);
  const buf = allocate(moofSize + mdatSize);

  let off = writeBoxHeader(buf, 0, moofSize, MOOF);
  off = writeFullBoxHeader(buf, off, 16, MFHD, 0, 0);
  off = buf.writeUInt32BE(input.sequenceNumber, off);
  let dataOff = moofSize + 8;
  let videoTicks = 0;
  if (video && v) {
    videoTicks = writeTraf(buf, off, dataOff, VIDEO_TRACK_ID, video, v, true);
    off += v.trafSize;
    dataOff += v.dataSize;
  }
  let audioTicks = 0;
  if (audio && a) audioTicks = writeTraf(buf, off, dataOff, AUDIO_TRACK_ID, audio, a, false);
  writeBoxHeader(buf, moofSize, mdatSize, MDAT);

  return {
    data: buf,
    keyframe: video ? video.samples[0]?.keyframe === true : true,
    decodeTime: lead.baseDecodeTime / timescale,
    duration: (video ? videoTicks : audioTicks) / timescale,
    sequenceNumber: input.sequenceNumber,
    sampleCount: lead.samples.length,
  };
}

/** Writes one traf at `off` and copies its samples to `dataOff`; returns the run's duration in ticks. */
function writeTraf(buf: Buffer, off: number, dataOff: number, trackId: number, run: TrackRun, l: RunLayout, video: boolean): number {
  const base = run.baseDecodeTime;
  if (!Number.isSafeInteger(base) || base < 0) throw new RangeError(`baseDecodeTime ${base} is not a non-negative integer`);
  off = writeBoxHeader(buf, off, l.trafSize, TRAF);
  if (video) {
    off = writeFullBoxHeader(buf, off, 16, TFHD, 0, TFHD_DEFAULT_BASE_IS_MOOF);
    off = buf.writeUInt32BE(trackId, off);
  } else {
    off = writeFullBoxHeader(buf, off, 20, TFHD, 0, TFHD_DEFAULT_BASE_IS_MOOF | TFHD_DEFAULT_SAMPLE_FLAGS);
    off = buf.writeUInt32BE(trackId, off);
    off = buf.writeUInt32BE(FLAGS_SYNC, off);
  }
  // Version 1 (64-bit) always: a 90 kHz clock passes 2^32 after 13 hours.
  off = writeFullBoxHeader(buf, off, 20, TFDT, 1, 0);
  off = buf.writeUInt32BE(Math.floor(base / 0x100000000), off);
  off = buf.writeUInt32BE(base >>> 0, off);

  const count = run.samples.length;
  let flags = TRUN_DATA_OFFSET | TRUN_SAMPLE_DURATION | TRUN_SAMPLE_SIZE;
  if (video) flags |= TRUN_SAMPLE_FLAGS;
  if (l.cto > 0) flags |= TRUN_SAMPLE_CTO;
  off = writeFullBoxHeader(buf, off, l.trunSize, TRUN, l.cto === 2 ? 1 : 0, flags);
  off = buf.writeUInt32BE(count, off);
  // data_offset counts from the moof start, which is byte 0 of this buffer.
  off = buf.writeInt32BE(dataOff, off);

  let ticks = 0;
  let d = dataOff;
  for (const sample of run.samples) {
    const start = d;
    if (video) {
      for (const part of sample.parts) {
        d = buf.writeUInt32BE(part.length, d);
        d += part.copy(buf, d);
      }
    } else {
      for (const part of sample.parts) d += part.copy(buf, d);
    }
    off = buf.writeUInt32BE(sample.duration, off);
    off = buf.writeUInt32BE(d - start, off);
    if (video) off = buf.writeUInt32BE(sample.keyframe ? FLAGS_SYNC : FLAGS_NON_SYNC, off);
    if (l.cto === 1) off = buf.writeUInt32BE(sample.compositionOffset ?? 0, off);
    else if (l.cto === 2) off = buf.writeInt32BE(sample.compositionOffset ?? 0, off);
    ticks += sample.duration;
  }
  return ticks;
}
