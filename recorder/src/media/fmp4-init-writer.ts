// fMP4 init segment writing: ftyp + moov (mvhd, one trak per track with its sample entry, mvex/trex) from codec parameter sets.
import { buildEsdsPayload } from './aac-config.js';
import { box, fourcc, fullBox, i16, u16, u32, zeros } from './box-writer.js';
import type { InitSegment } from './fmp4-types.js';
import { AUDIO_TRACK_ID, VIDEO_TRACK_ID, type AacTrackConfig, type MuxerTracks, type VideoTrackConfig } from './fmp4-muxer-types.js';
import { buildAvcC, parseH264Sps } from './h264-sps.js';
import { buildHvcC, parseH265Sps } from './h265-sps.js';
import { parseInitSegment } from './init-parser.js';

/** Video tracks count in 90 kHz, the RTP video clock, so RTP timestamp deltas are durations as they are. */
export const VIDEO_TIMESCALE = 90000;
const MOVIE_TIMESCALE = 1000;
/** tkhd flags: track_enabled | track_in_movie | track_in_preview. */
const TKHD_FLAGS = 0x7;
/** Unity transformation matrix (16.16 / 2.30 fixed point). */
const MATRIX = Buffer.from(
  [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].flatMap((v) => [v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff]),
);
/** ISO 639-2 'und' packed as three 5-bit letters (each minus 0x60). */
const LANGUAGE_UND = 0x55c4;

interface TrackPlan {
  trackId: number;
  handler: 'vide' | 'soun';
  timescale: number;
  tkhdWidth: number;
  tkhdHeight: number;
  sampleEntry: Buffer;
}

/**
 * The init segment for `tracks`. The returned InitSegment is what the fMP4 parser reads back from the
 * bytes, so a muxed stream and an ffmpeg-made one look the same to the rest of the recorder.
 * Throws when a parameter set cannot be parsed.
 */
export function buildInitSegment(tracks: MuxerTracks): InitSegment {
  const plans: TrackPlan[] = [];
  if (tracks.video) plans.push(videoPlan(tracks.video));
  if (tracks.audio) plans.push(audioPlan(tracks.audio));
  if (plans.length === 0) throw new RangeError('an init segment needs a video or an audio track');
  const brands = ['iso5', 'iso6', 'mp41'];
  if (tracks.video?.codec === 'h264') brands.push('avc1');
  const ftyp = box('ftyp', fourcc('iso5'), u32(512), ...brands.map(fourcc));
  const nextTrackId = Math.max(...plans.map((p) => p.trackId)) + 1;
  const moov = box(
    'moov',
    mvhd(nextTrackId),
    ...plans.map(trak),
    box('mvex', ...plans.map((p) => fullBox('trex', 0, 0, u32(p.trackId), u32(1), u32(0), u32(0), u32(0)))),
  );
  return parseInitSegment(Buffer.concat([ftyp, moov]));
}

function videoPlan(config: VideoTrackConfig): TrackPlan {
  if (config.codec === 'h264') {
    const sps = parseH264Sps(config.sps);
    const avcC = box('avcC', buildAvcC(config.sps, config.pps, sps));
    // pasp whenever the SPS states a sample aspect ratio, 1:1 included, as ffmpeg writes it.
    const sar = sps.sar;
    const extra = sar ? [avcC, box('pasp', u32(sar.width), u32(sar.height))] : [avcC];
    const displayWidth = sar ? Math.round((sps.width * sar.width) / sar.height) : sps.width;
    return {
      trackId: VIDEO_TRACK_ID,
      handler: 'vide',
      timescale: VIDEO_TIMESCALE,
      tkhdWidth: displayWidth,
      tkhdHeight: sps.height,
      sampleEntry: visualSampleEntry('avc1', sps.width, sps.height, extra),
    };
  }
  const sps = parseH265Sps(config.sps);
  const hvcC = box('hvcC', buildHvcC(config.vps, config.sps, config.pps, sps));
  return {
    trackId: VIDEO_TRACK_ID,
    handler: 'vide',
    timescale: VIDEO_TIMESCALE,
    tkhdWidth: sps.width,
    tkhdHeight: sps.height,
    // 'hvc1': every parameter set is in hvcC, none in the samples (they go to the config, not the access units).
    sampleEntry: visualSampleEntry('hvc1', sps.width, sps.height, [hvcC]),
  };
}

function audioPlan(config: AacTrackConfig): TrackPlan {
  if (!Number.isInteger(config.sampleRate) || config.sampleRate <= 0) throw new RangeError(`AAC sample rate ${config.sampleRate}`);
  const esds = fullBox('esds', 0, 0, buildEsdsPayload(config.audioSpecificConfig, { esId: AUDIO_TRACK_ID, channels: config.channels }));
  const entry = box(
    'mp4a',
    zeros(6), u16(1), // SampleEntry reserved, data_reference_index
    zeros(8), // AudioSampleEntry reserved (version 0)
    u16(config.channels), u16(16), u16(0), u16(0), // channelcount, samplesize, pre_defined, reserved
    // samplerate is 16.16: rates above 65535 do not fit; the AudioSpecificConfig carries the real one.
    u32(config.sampleRate <= 0xffff ? config.sampleRate * 65536 : 0),
    esds,
  );
  return { trackId: AUDIO_TRACK_ID, handler: 'soun', timescale: config.sampleRate, tkhdWidth: 0, tkhdHeight: 0, sampleEntry: entry };
}

function visualSampleEntry(type: 'avc1' | 'hvc1', width: number, height: number, configBoxes: Buffer[]): Buffer {
  return box(
    type,
    zeros(6), u16(1), // SampleEntry reserved, data_reference_index
    zeros(16), // pre_defined, reserved, pre_defined[3]
    u16(width), u16(height),
    u32(0x00480000), u32(0x00480000), // 72 dpi
    u32(0), u16(1), // reserved, frame_count
    zeros(32), // compressorname (empty Pascal string)
    u16(0x0018), i16(-1), // depth, pre_defined
    ...configBoxes,
  );
}

function mvhd(nextTrackId: number): Buffer {
  return fullBox(
    'mvhd', 0, 0,
    u32(0), u32(0), u32(MOVIE_TIMESCALE), u32(0), // creation, modification, timescale, duration (fragments carry it)
    u32(0x00010000), u16(0x0100), zeros(10), // rate 1.0, volume 1.0, reserved
    MATRIX, zeros(24), u32(nextTrackId),
  );
}

function trak(plan: TrackPlan): Buffer {
  const audio = plan.handler === 'soun';
  const tkhd = fullBox(
    'tkhd', 0, TKHD_FLAGS,
    u32(0), u32(0), u32(plan.trackId), u32(0), u32(0), // creation, modification, track_ID, reserved, duration
    zeros(8), u16(0), u16(0), u16(audio ? 0x0100 : 0), u16(0), // reserved, layer, alternate_group, volume, reserved
    MATRIX, u32(plan.tkhdWidth * 65536), u32(plan.tkhdHeight * 65536),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0), u32(0), u32(plan.timescale), u32(0), u16(LANGUAGE_UND), u16(0));
  const name = audio ? 'SoundHandler' : 'VideoHandler';
  const hdlr = fullBox('hdlr', 0, 0, u32(0), fourcc(plan.handler), zeros(12), Buffer.from(`${name}\0`, 'latin1'));
  const mediaHeader = audio ? fullBox('smhd', 0, 0, u16(0), u16(0)) : fullBox('vmhd', 0, 1, u16(0), zeros(6));
  // One self-contained data reference: the samples are in this file (flag 1), no URL.
  const dinf = box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), plan.sampleEntry),
    fullBox('stts', 0, 0, u32(0)),
    fullBox('stsc', 0, 0, u32(0)),
    fullBox('stsz', 0, 0, u32(0), u32(0)),
    fullBox('stco', 0, 0, u32(0)),
  );
  return box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', mediaHeader, dinf, stbl)));
}
