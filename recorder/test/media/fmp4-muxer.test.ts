// fMP4 muxer: byte layout of init segments and fragments, and real H.264/H.265/AAC streams muxed, decoded by ffmpeg and parsed back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildAudioSpecificConfig } from '../../src/media/aac-config.js';
import { iterateBoxes } from '../../src/media/box-reader.js';
import { parseAudioSpecificConfig } from '../../src/media/esds.js';
import { buildFragment, fragmentSize } from '../../src/media/fmp4-fragment-writer.js';
import { buildInitSegment } from '../../src/media/fmp4-init-writer.js';
import type { FragmentInput, MuxerTracks, MuxSample } from '../../src/media/fmp4-muxer-types.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import { rebaseFragment, trackOffsetsFor } from '../../src/media/fragment-rebase.js';
import { parseMoof } from '../../src/media/moof-parser.js';
import { groupAccessUnits, readAdts, splitAnnexB, type AccessUnit, type VideoCodec } from './annexb.js';
import { hasEncoder, parseChunked, run, seededRandom, tempDir } from './fixtures.js';

const hex = (s: string): Buffer => Buffer.from(s, 'hex');
/** libx264 baseline 640x360 level 3.0 and libx265 Main 320x240 parameter sets. */
const H264_SPS = hex('6742c01ed900a02ff97011000003000100000300320f162e48');
const H264_PPS = hex('68cb83cb20');
const H265_VPS = hex('40010c01ffff01600000030090000003000003003c959409');
const H265_SPS = hex('42010101600000030090000003000003003ca00a080f16595952930bc05a020000030002000003003210');
const H265_PPS = hex('4401c073c189');
const ASC_48K_MONO = buildAudioSpecificConfig(2, 48000, 1);

const TRACKS: MuxerTracks = {
  video: { codec: 'h264', sps: H264_SPS, pps: [H264_PPS] },
  audio: { codec: 'aac', audioSpecificConfig: ASC_48K_MONO, sampleRate: 48000, channels: 1 },
};

function nal(type: number, length: number, fill: number): Buffer {
  const b = Buffer.alloc(length, fill);
  b[0] = type;
  return b;
}

test('init segment parses back with the right tracks and codec strings', () => {
  assert.deepEqual([...ASC_48K_MONO], [0x11, 0x88]);
  const init = buildInitSegment(TRACKS);
  const boxes = [...iterateBoxes(init.data, 0, init.data.length)].map((b) => b.type);
  assert.deepEqual(boxes, ['ftyp', 'moov']);
  assert.equal(init.data.toString('latin1', 8, 12), 'iso5');
  assert.deepEqual(
    init.tracks.map((t) => [t.trackId, t.handler, t.timescale, t.codec, t.sampleEntry]),
    [[1, 'vide', 90000, 'avc1.42C01E', 'avc1'], [2, 'soun', 48000, 'mp4a.40.2', 'mp4a']],
  );
  assert.deepEqual([init.video?.width, init.video?.height], [640, 360]);
  const pasp = init.data.indexOf('pasp', 0, 'latin1');
  assert.deepEqual([init.data.readUInt32BE(pasp + 4), init.data.readUInt32BE(pasp + 8)], [1, 1], 'the SPS says 1:1');
  assert.deepEqual([init.tracks[1]?.channels, init.tracks[1]?.sampleRate], [1, 48000]);

  const hevc = buildInitSegment({ video: { codec: 'h265', vps: H265_VPS, sps: H265_SPS, pps: [H265_PPS] } });
  assert.equal(hevc.tracks.length, 1);
  assert.match(hevc.video?.codec ?? '', /^hvc1\.1\.6\.L60\.[0-9A-F]{2}$/);
  assert.deepEqual([hevc.video?.width, hevc.video?.height], [320, 240]);

  const audioOnly = buildInitSegment({ audio: { codec: 'aac', audioSpecificConfig: buildAudioSpecificConfig(2, 16000, 2), sampleRate: 16000, channels: 2 } });
  assert.equal(audioOnly.video, undefined);
  assert.deepEqual(audioOnly.tracks.map((t) => [t.trackId, t.timescale, t.codec, t.channels]), [[2, 16000, 'mp4a.40.2', 2]]);
  assert.throws(() => buildInitSegment({}), RangeError);
  // A rate outside the index table is written explicitly.
  assert.deepEqual(parseAudioSpecificConfig(buildAudioSpecificConfig(2, 50000, 2)), { audioObjectType: 2, sampleRate: 50000, channels: 2 });
});

test('fragment layout: trun offsets, sizes, flags, 64-bit tfdt', () => {
  const init = buildInitSegment(TRACKS);
  const idr = [nal(0x06, 9, 1), nal(0x65, 300, 2)];
  const p = [nal(0x41, 120, 3)];
  const base = 2 ** 40 + 7; // beyond 32 bits: tfdt must be version 1
  const input: FragmentInput = {
    sequenceNumber: 42,
    video: {
      baseDecodeTime: base,
      samples: [
        { parts: idr, duration: 3600, keyframe: true },
        { parts: p, duration: 3000 },
      ],
    },
    audio: {
      baseDecodeTime: 96000,
      samples: [
        { parts: [Buffer.alloc(50, 0xa1)], duration: 1024 },
        { parts: [Buffer.alloc(60, 0xa2)], duration: 1024 },
      ],
    },
  };
  const f = buildFragment(input);
  assert.equal(f.data.length, fragmentSize(input));
  assert.deepEqual({ ...f, data: null }, {
    data: null, keyframe: true, decodeTime: base / 90000, duration: 6600 / 90000, sequenceNumber: 42, sampleCount: 2,
  });
  const [moof, mdat, extra] = [...iterateBoxes(f.data, 0, f.data.length)];
  assert.equal(extra, undefined);
  assert.equal(moof?.type, 'moof');
  assert.equal(mdat?.type, 'mdat');
  assert.ok(moof && mdat);
  const parsed = parseMoof(f.data, moof, init.tracks);
  assert.equal(parsed.sequenceNumber, 42);
  const [v, a] = parsed.trafs;
  assert.deepEqual(v, {
    trackId: 1, baseMediaDecodeTime: base, sampleCount: 2, durationTicks: 6600, firstSampleFlags: 0x02000000,
    dataEndFromMoof: mdat.start + 8 + 4 + 9 + 4 + 300 + 4 + 120,
  });
  assert.deepEqual(a, {
    trackId: 2, baseMediaDecodeTime: 96000, sampleCount: 2, durationTicks: 2048, firstSampleFlags: 0x02000000, dataEndFromMoof: mdat.end,
  });
  // Every NAL unit sits behind its 4-byte length, video first, then the audio frames as they are.
  const body = f.data.subarray(mdat.start + 8);
  const lengthPrefixed = [...idr, ...p].flatMap((n) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(n.length);
    return [length, n];
  });
  const expected = Buffer.concat([...lengthPrefixed, Buffer.alloc(50, 0xa1), Buffer.alloc(60, 0xa2)]);
  assert.ok(body.equals(expected));
  // The second video sample is a non-sync sample that depends on others.
  const trun = f.data.indexOf('trun', moof.start, 'latin1') - 4;
  assert.equal(f.data.readUInt32BE(trun + 8), 0x000701); // version 0; data offset, duration, size, flags
  assert.equal(f.data.readInt32BE(trun + 16), mdat.start + 8);
  assert.equal(f.data.readUInt32BE(trun + 20 + 12 + 8), 0x01010000);
});

test('fragment: composition offsets, audio-only fragments, invalid input', () => {
  const samples: MuxSample[] = [
    { parts: [nal(0x65, 10, 1)], duration: 3600, keyframe: true, compositionOffset: 7200 },
    { parts: [nal(0x41, 10, 2)], duration: 3600, compositionOffset: -3600 },
  ];
  const f = buildFragment({ sequenceNumber: 1, video: { baseDecodeTime: 0, samples } });
  const trun = f.data.indexOf('trun', 0, 'latin1') - 4;
  assert.equal(f.data.readUInt32BE(trun + 8), 0x01000f01, 'version 1 (signed offsets); all four per-sample fields');
  assert.equal(f.data.readInt32BE(trun + 20 + 12), 7200);
  assert.equal(f.data.readInt32BE(trun + 20 + 16 + 12), -3600);
  const positive = buildFragment({
    sequenceNumber: 1,
    video: { baseDecodeTime: 0, samples: [{ parts: [nal(0x65, 10, 1)], duration: 3600, keyframe: true, compositionOffset: 3600 }] },
  });
  assert.equal(positive.data.readUInt32BE(positive.data.indexOf('trun', 0, 'latin1') + 4), 0x00000f01, 'version 0 when no offset is negative');

  const audio = { baseDecodeTime: 48000 * 10, samples: [{ parts: [Buffer.alloc(20)], duration: 1024 }], timescale: 48000 };
  const af = buildFragment({ sequenceNumber: 5, video: { baseDecodeTime: 0, samples: [] }, audio });
  assert.deepEqual({ ...af, data: null }, { data: null, keyframe: true, decodeTime: 10, duration: 1024 / 48000, sequenceNumber: 5, sampleCount: 1 });
  const audioInit = buildInitSegment({ audio: { codec: 'aac', audioSpecificConfig: ASC_48K_MONO, sampleRate: 48000, channels: 1 } });
  const r = parseChunked(Buffer.concat([audioInit.data, af.data]), () => 64);
  assert.deepEqual(r.errors, []);
  assert.deepEqual({ ...r.fragments[0], data: null }, { ...af, data: null });

  assert.throws(() => buildFragment({ sequenceNumber: 1, audio: { ...audio, timescale: undefined } }), /timescale/);
  assert.throws(() => buildFragment({ sequenceNumber: 1 }), RangeError);
  assert.throws(() => buildFragment({ sequenceNumber: 1, video: { baseDecodeTime: -1, samples } }), RangeError);
});

interface Source {
  codec: VideoCodec;
  params: ReturnType<typeof groupAccessUnits>['params'];
  units: AccessUnit[];
  /** Per access unit, in decode order: ffmpeg's pts and dts (90 kHz) and keyframe flag. */
  packets: Array<{ pts: number; dts: number; key: boolean }>;
  audioFrames: Buffer[];
  audioConfig?: { asc: Buffer; sampleRate: number; channels: number };
}

/**
 * Encodes testsrc2 (and a sine) to an ordinary mp4 with ffmpeg, then takes the video out as Annex-B and
 * the audio as ADTS: the mp4's packet table is the truth for timestamps and keyframes.
 */
async function makeSource(dir: string, name: string, codec: VideoCodec, videoArgs: string[], audio: boolean): Promise<Source> {
  const src = join(dir, `${name}-src.mp4`);
  const inputs = ['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25'];
  if (audio) inputs.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000');
  const encoder = codec === 'h264' ? ['-c:v', 'libx264'] : ['-c:v', 'libx265', '-tag:v', 'hvc1'];
  const audioArgs = audio ? ['-map', '1:a', '-c:a', 'aac'] : [];
  await run('ffmpeg', ['-v', 'error', '-y', ...inputs, '-t', '1', '-map', '0:v', ...encoder, ...videoArgs, ...audioArgs, '-video_track_timescale', '90000', src]);
  const es = join(dir, `${name}.${codec}`);
  const adts = join(dir, `${name}.aac`);
  const bsf = codec === 'h264' ? 'h264_mp4toannexb' : 'hevc_mp4toannexb';
  const [, probe] = await Promise.all([
    run('ffmpeg', [
      '-v', 'error', '-y', '-i', src, '-map', '0:v', '-c', 'copy', '-bsf:v', bsf, '-f', codec === 'h264' ? 'h264' : 'hevc', es,
      ...(audio ? ['-map', '0:a', '-c', 'copy', '-f', 'adts', adts] : []),
    ]),
    run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts,dts,flags', '-of', 'json', src]),
  ]);
  const packets = (JSON.parse(probe.stdout) as { packets: Array<{ pts: number; dts: number; flags: string }> }).packets.map((p) => ({
    pts: p.pts, dts: p.dts, key: p.flags.includes('K'),
  }));
  const { params, units } = groupAccessUnits(codec, splitAnnexB(await readFile(es)));
  const source: Source = { codec, params, units, packets, audioFrames: [] };
  if (audio) {
    const a = readAdts(await readFile(adts));
    source.audioFrames = a.frames;
    source.audioConfig = { asc: buildAudioSpecificConfig(a.audioObjectType, a.sampleRate, a.channels), sampleRate: a.sampleRate, channels: a.channels };
  }
  return source;
}

function tracksOf(s: Source): MuxerTracks {
  const video = s.codec === 'h264'
    ? { codec: 'h264' as const, sps: s.params.sps, pps: s.params.pps }
    : { codec: 'h265' as const, vps: s.params.vps ?? Buffer.alloc(0), sps: s.params.sps, pps: s.params.pps };
  const a = s.audioConfig;
  return a ? { video, audio: { codec: 'aac', audioSpecificConfig: a.asc, sampleRate: a.sampleRate, channels: a.channels } } : { video };
}

/** One fragment per picture, with the audio frames that start before the next picture. */
function muxAll(s: Source): { init: InitSegment; fragments: MediaFragment[] } {
  const init = buildInitSegment(tracksOf(s));
  const dts0 = s.packets[0]?.dts ?? 0;
  const fragments: MediaFragment[] = [];
  let nextAudio = 0;
  s.units.forEach((unit, i) => {
    const pkt = s.packets[i];
    assert.ok(pkt);
    const nextDts = s.packets[i + 1]?.dts ?? pkt.dts + 3600;
    const input: FragmentInput = {
      sequenceNumber: i + 1,
      video: {
        baseDecodeTime: pkt.dts - dts0,
        samples: [{ parts: unit.nalus, duration: nextDts - pkt.dts, keyframe: unit.keyframe, compositionOffset: pkt.pts - pkt.dts }],
      },
    };
    const rate = s.audioConfig?.sampleRate;
    if (rate) {
      const first = nextAudio;
      const last = i + 1 < s.units.length ? (nextDts - dts0) / 90000 : Infinity;
      const samples: MuxSample[] = [];
      while (nextAudio < s.audioFrames.length && (nextAudio * 1024) / rate < last) {
        samples.push({ parts: [s.audioFrames[nextAudio] ?? Buffer.alloc(0)], duration: 1024 });
        nextAudio++;
      }
      input.audio = { baseDecodeTime: first * 1024, samples, timescale: rate };
    }
    fragments.push(buildFragment(input));
  });
  assert.equal(nextAudio, s.audioFrames.length);
  return { init, fragments };
}

interface ProbedStream {
  codec_type: string;
  codec_name: string;
  profile?: string;
  width?: number;
  height?: number;
  nb_read_frames: string;
}

async function probeFile(path: string): Promise<{ streams: ProbedStream[]; decodeErrors: string }> {
  const [probe, decode] = await Promise.all([
    run('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_type,codec_name,profile,width,height,nb_read_frames', '-of', 'json', path]),
    run('ffmpeg', ['-v', 'error', '-i', path, '-f', 'null', '-']),
  ]);
  return { streams: (JSON.parse(probe.stdout) as { streams: ProbedStream[] }).streams, decodeErrors: decode.stderr + probe.stderr };
}

async function packetTimes(path: string): Promise<Array<{ pts: number; dts: number }>> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts,dts', '-of', 'json', path]);
  return (JSON.parse(stdout) as { packets: Array<{ pts: number; dts: number }> }).packets;
}

const x265 = await hasEncoder('libx265');
const CASES: Array<{ name: string; codec: VideoCodec; args: string[]; audio: boolean; codecName: string; profile: string; skip?: string | false }> = [
  { name: 'h264-baseline', codec: 'h264', args: ['-profile:v', 'baseline', '-g', '10'], audio: false, codecName: 'h264', profile: 'Constrained Baseline' },
  // High profile with B-frames (composition offsets) and AAC interleaved.
  { name: 'h264-high-aac', codec: 'h264', args: ['-profile:v', 'high', '-g', '10', '-bf', '2'], audio: true, codecName: 'h264', profile: 'High' },
  {
    name: 'h265-aac', codec: 'h265', args: ['-preset', 'ultrafast', '-x265-params', 'log-level=error:keyint=10:bframes=2'], audio: true,
    codecName: 'hevc', profile: 'Main', skip: x265 ? false : 'ffmpeg has no libx265 encoder',
  },
];

// The cases run side by side: most of their time is spent waiting for ffmpeg processes.
test('muxed streams decode in ffmpeg and parse back', { concurrency: true }, async (suite) => {
  const dir = await tempDir(suite);
  await Promise.all(CASES.map((c) => suite.test(c.name, { skip: c.skip ?? false }, async () => {
    const source = await makeSource(dir, c.name, c.codec, c.args, c.audio);
    assert.equal(source.units.length, source.packets.length, 'one access unit per mp4 sample');
    assert.deepEqual(source.units.map((u) => u.keyframe), source.packets.map((p) => p.key));
    const { init, fragments } = muxAll(source);
    const file = Buffer.concat([init.data, ...fragments.map((f) => f.data)]);
    const path = join(dir, `${c.name}.mp4`);
    await writeFile(path, file);

    const [{ streams, decodeErrors }, times] = await Promise.all([probeFile(path), packetTimes(path)]);
    assert.equal(decodeErrors, '');
    const video = streams.find((s) => s.codec_type === 'video');
    assert.deepEqual(
      [video?.codec_name, video?.profile, video?.width, video?.height, Number(video?.nb_read_frames)],
      [c.codecName, c.profile, 640, 360, source.units.length],
    );
    const audio = streams.find((s) => s.codec_type === 'audio');
    if (c.audio) {
      assert.equal(audio?.codec_name, 'aac');
      assert.equal(Number(audio?.nb_read_frames), source.audioFrames.length);
    } else {
      assert.equal(audio, undefined);
    }
    // Presentation order survives: our times are ffmpeg's shifted by one constant.
    assert.equal(times.length, source.packets.length);
    const shift = (times[0]?.dts ?? 0) - (source.packets[0]?.dts ?? 0);
    assert.deepEqual(times.map((p) => [p.pts - shift, p.dts - shift]), source.packets.map((p) => [p.pts, p.dts]));

    const rnd = seededRandom(3);
    const r = parseChunked(file, () => 1 + Math.floor(rnd() * 5000));
    assert.deepEqual(r.errors, []);
    assert.ok(r.inits[0]?.data.equals(init.data));
    assert.deepEqual({ ...r.inits[0], data: null }, { ...init, data: null });
    assert.equal(r.fragments.length, fragments.length);
    r.fragments.forEach((f, i) => {
      const mine = fragments[i];
      assert.ok(mine && f.data.equals(mine.data));
      assert.deepEqual({ ...f, data: null }, { ...mine, data: null }, `fragment ${i}`);
      assert.equal(f.keyframe, source.units[i]?.keyframe);
      assert.equal(f.sampleCount, 1);
      assert.ok(Math.abs(f.decodeTime - i * 0.04) < 1e-9, `decodeTime ${f.decodeTime} of fragment ${i}`);
    });

    // A segment cut at the second keyframe and rebased to zero still decodes.
    const cut = fragments.findIndex((f, i) => i > 0 && f.keyframe);
    const start = fragments[cut];
    assert.ok(start && cut > 0);
    const offsets = trackOffsetsFor(init, start.decodeTime);
    const rebased = Buffer.concat([init.data, ...fragments.slice(cut).flatMap((f) => rebaseFragment(f.data, offsets))]);
    const rebasedPath = join(dir, `${c.name}-rebased.mp4`);
    await writeFile(rebasedPath, rebased);
    const again = await probeFile(rebasedPath);
    assert.equal(again.decodeErrors, '');
    assert.equal(Number(again.streams.find((s) => s.codec_type === 'video')?.nb_read_frames), fragments.length - cut);
    const back = parseChunked(rebased, () => rebased.length);
    assert.deepEqual(back.errors, []);
    assert.equal(back.fragments[0]?.decodeTime, 0);
    assert.equal(back.fragments[0]?.keyframe, true);
  })));
});
