// The native timeline: nothing before the first keyframe, one fragment per picture, new init on new parameter sets, chained times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NativeStreamAssembler, type NativeAudio } from '../../src/ingest/native-stream-assembler.js';
import { Fmp4StreamParser } from '../../src/media/fmp4-stream-parser.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import type { ParameterSets, VideoAccessUnit } from '../../src/rtp/access-unit.js';
import { chainBreaks } from '../support/fragment-timing.js';

// The SPS and PPS x264 writes for 320x180 constrained baseline (ffmpeg -profile:v baseline).
const SPS = Buffer.from('6742c00cd901419f9f011000000300100000030320f142a480', 'hex');
const PPS = Buffer.from('68cb83cb20', 'hex');

function picture(keyframe: boolean, rtpTimestamp: number): VideoAccessUnit {
  const slice = Buffer.from([keyframe ? 0x65 : 0x41, 0x88, 0x84, 0x00, 0x33]);
  return { kind: 'video', codec: 'h264', nalus: [slice], bytes: slice.length, rtpTimestamp, keyframe } as VideoAccessUnit;
}

function collect(): { inits: InitSegment[]; fragments: MediaFragment[]; assembler: NativeStreamAssembler } {
  const out = { inits: [] as InitSegment[], fragments: [] as MediaFragment[] };
  const assembler = new NativeStreamAssembler({ onInit: (i) => out.inits.push(i), onFragment: (f) => out.fragments.push(f) }, { audio: undefined, now: () => 0 });
  return { ...out, assembler };
}

const sets: ParameterSets = { codec: 'h264', sps: SPS, pps: [PPS] };
const AAC_MONO_48K: NativeAudio = {
  config: { codec: 'aac', audioSpecificConfig: Buffer.from([0x11, 0x88]), objectType: 2, sampleRate: 48_000, channels: 1, frameLength: 1024 },
  clockRate: 48_000,
};

test('pictures before the first keyframe are dropped; then one fragment per picture with decode times from RTP, from 0', () => {
  const { inits, fragments, assembler } = collect();
  assembler.setParameterSets(sets);
  assembler.pushVideo(picture(false, 1000), 1000, undefined);
  assert.equal(inits.length + fragments.length, 0, 'a P-frame cannot start a stream');
  assembler.pushVideo(picture(true, 4600), 4600, 1_700_000_000_000);
  assembler.pushVideo(picture(false, 8200), 8200, undefined);
  assembler.pushVideo(picture(false, 11_800), 11_800, undefined);
  assert.equal(inits.length, 1);
  assert.equal(inits[0]?.video?.codec, 'avc1.42C00C');
  assert.deepEqual([inits[0]?.video?.width, inits[0]?.video?.height], [320, 180]);
  assert.deepEqual(fragments.map((f) => [f.keyframe, Math.round(f.decodeTime * 90_000), f.sampleCount]), [[true, 0, 1], [false, 3600, 1], [false, 7200, 1]]);
  assert.equal(fragments[0]?.wallClockMs, 1_700_000_000_000, 'the capture time travels with the fragment');
  // What the hub gets parses back through the recorder's own fMP4 parser.
  const parsed: MediaFragment[] = [];
  const parser = new Fmp4StreamParser({ onInit: () => undefined, onFragment: (f) => parsed.push(f), onError: (e) => assert.fail(e) });
  parser.push(Buffer.concat([inits[0]?.data as Buffer, ...fragments.map((f) => f.data)]));
  assert.deepEqual(parsed.map((f) => f.keyframe), [true, false, false]);
});

test('changed parameter sets bring a new init segment at the next keyframe, not before', () => {
  const { inits, assembler } = collect();
  assembler.setParameterSets(sets);
  assembler.pushVideo(picture(true, 0), 0, undefined);
  assembler.setParameterSets({ codec: 'h264', sps: SPS, pps: [Buffer.from('68cb83cb21', 'hex')] });
  assembler.pushVideo(picture(false, 3600), 3600, undefined);
  assert.equal(inits.length, 1);
  assembler.pushVideo(picture(true, 7200), 7200, undefined);
  assert.equal(inits.length, 2);
});

test('a picture with the timestamp of the one before (a camera under load) is kept, and the times go on', () => {
  const { fragments, assembler } = collect();
  assembler.setParameterSets(sets);
  for (const [ticks, key] of [[0, true], [3600, false], [3600, false], [7200, false], [10_800, true]] as const) assembler.pushVideo(picture(key, ticks), ticks, undefined);
  assert.equal(fragments.length, 5, 'no picture dropped');
  const times = fragments.map((f) => Math.round(f.decodeTime * 90_000));
  assert.ok(times.every((t, i) => i === 0 || t > (times[i - 1] as number)), `decode times rise (${times.join(', ')})`);
  fragments.forEach((f, i) => {
    const next = fragments[i + 1];
    if (next !== undefined) assert.equal(Math.round((f.decodeTime + f.duration) * 90_000), Math.round(next.decodeTime * 90_000), `fragment ${i + 1} starts where ${i} ended`);
  });
});

test('a jump of the camera clock is a discontinuity: decode times go on by one picture', () => {
  const { fragments, assembler } = collect();
  assembler.setParameterSets(sets);
  assembler.pushVideo(picture(true, 0), 0, undefined);
  assembler.pushVideo(picture(false, 3600), 3600, undefined);
  assembler.pushVideo(picture(false, 3600 + 90_000 * 3600), 3600 + 90_000 * 3600, undefined);
  assert.deepEqual(fragments.map((f) => Math.round(f.decodeTime * 90_000)), [0, 3600, 7200]);
});

test('while nobody watches, pictures go out up to 200 ms per fragment, starting at keyframes; a viewer gets each picture again', () => {
  const out: MediaFragment[] = [];
  let watched = false;
  const assembler = new NativeStreamAssembler(
    { onInit: () => undefined, onFragment: (f) => out.push(f) },
    { audio: undefined, now: () => 0, mayHoldPictures: () => !watched },
  );
  assembler.setParameterSets(sets);
  const push = (n: number, keyframe: boolean, wallClockMs?: number): void => {
    // Like a depacketizer's scratch memory: the NAL unit's bytes are overwritten once the picture was handed over.
    const slice = Buffer.from([keyframe ? 0x65 : 0x41, 0x88, 0xa0 + n, 0x00, 0x33]);
    assembler.pushVideo({ ...picture(keyframe, n * 3600), nalus: [slice] }, n * 3600, wallClockMs);
    slice.fill(0xee);
  };
  push(0, true, 1_700_000_000_000);
  for (let n = 1; n <= 6; n++) push(n, false);
  push(7, true);
  assert.deepEqual(out.map((f) => [f.keyframe, Math.round(f.decodeTime * 90_000), f.sampleCount]), [[true, 0, 5], [false, 18_000, 2]],
    'five pictures (200 ms at 25 fps), then the two before the next keyframe; the keyframe is held for the next fragment');
  assert.equal(out[0]?.wallClockMs, 1_700_000_000_000, 'a held fragment is named by its first picture');
  assert.equal(out[0]?.duration, 0.2);
  for (let n = 0; n <= 6; n++) assert.ok(out[n < 5 ? 0 : 1]?.data.includes(Buffer.from([0x88, 0xa0 + n, 0x00, 0x33])), `picture ${n}'s bytes were copied before its memory was reused`);
  watched = true;
  push(8, false);
  assert.deepEqual(out.slice(2).map((f) => [f.keyframe, Math.round(f.decodeTime * 90_000), f.sampleCount]), [[true, 25_200, 1], [false, 28_800, 1]],
    'once watched, the held keyframe goes out, then one fragment per picture');
  watched = false;
  push(9, false);
  assert.equal(out.length, 4, 'held again');
  assembler.sendHeld();
  assert.deepEqual(out.slice(4).map((f) => [Math.round(f.decodeTime * 90_000), f.sampleCount]), [[32_400, 1]], 'the end of the stream sends what was held');
  assembler.sendHeld();
  assert.equal(out.length, 5, 'nothing twice');
});

test('held pictures that would outgrow the hold buffer go out early: its memory stays the size of the largest picture', () => {
  const out: MediaFragment[] = [];
  const assembler = new NativeStreamAssembler(
    { onInit: () => undefined, onFragment: (f) => out.push(f) },
    { audio: undefined, now: () => 0, mayHoldPictures: () => true },
  );
  assembler.setParameterSets(sets);
  const big = (n: number, keyframe: boolean, bytes: number): VideoAccessUnit => {
    const slice = Buffer.alloc(bytes, n);
    slice[0] = keyframe ? 0x65 : 0x41;
    return { ...picture(keyframe, n * 3600), nalus: [slice], bytes };
  };
  assembler.pushVideo(big(0, true, 40_000), 0, undefined);
  assembler.pushVideo(big(1, false, 30_000), 3600, undefined);
  assembler.pushVideo(big(2, false, 200_000), 7200, undefined);
  assembler.pushVideo(big(3, false, 1_000), 10_800, undefined);
  assembler.sendHeld();
  assert.deepEqual(out.map((f) => f.sampleCount), [1, 1, 1, 1],
    'the keyframe alone (picture 1 did not fit beside it), picture 1 alone (picture 2 is bigger than the buffer, which grows to it), picture 2 alone (it fills the buffer), then 3');
  assert.deepEqual(out.map((f) => Math.round(f.decodeTime * 90_000)), [0, 3600, 7200, 10_800]);
  assert.ok(out[2]?.data.includes(Buffer.alloc(64, 2)) && out[3]?.data.includes(Buffer.alloc(64, 3)), 'the big picture and the one after it were both kept whole');
});

test('audio that arrives ahead of the video waits for the fragment whose pictures reach its time', () => {
  const out: MediaFragment[] = [];
  const assembler = new NativeStreamAssembler(
    { onInit: () => undefined, onFragment: (f) => out.push(f) },
    { audio: undefined, now: () => 0 },
  );
  assembler.setAudio(AAC_MONO_48K);
  assembler.setParameterSets(sets);
  const frame = (n: number): Buffer => Buffer.from([0xfa, 0xce, 0x0a, n]);
  assembler.pushVideo(picture(true, 0), 0, undefined);
  // Ten AAC frames (1024 samples each, 21.3 ms): 213 ms of audio, sent before the camera's next picture.
  for (let n = 0; n < 10; n++) assembler.pushAudio(frame(n), n * 1024);
  assembler.pushVideo(picture(false, 3600), 3600, undefined);
  assembler.pushVideo(picture(false, 7200), 7200, undefined);
  const framesIn = (f: MediaFragment | undefined): number[] => [...Array(10).keys()].filter((n) => f?.data.includes(frame(n)) === true);
  // Picture 1 plays 40–80 ms: frames starting before 80 ms (0, 21, 43, 64 ms); picture 2 (80–120 ms) the next two.
  assert.deepEqual(framesIn(out[1]), [0, 1, 2, 3]);
  assert.deepEqual(framesIn(out[2]), [4, 5]);
});

test('settled: after the first picture without audio; with audio, once its first frame is placed or 2 s have passed', () => {
  let now = 1_000;
  const make = () => new NativeStreamAssembler({ onInit: () => undefined, onFragment: () => undefined }, { audio: undefined, now: () => now });
  const aac = AAC_MONO_48K;

  const videoOnly = make();
  videoOnly.setParameterSets(sets);
  assert.equal(videoOnly.settled, false, 'nothing has arrived yet');
  videoOnly.pushVideo(picture(true, 0), 0, undefined);
  assert.equal(videoOnly.settled, true);

  const withAudio = make();
  withAudio.setAudio(aac);
  withAudio.setParameterSets(sets);
  withAudio.pushVideo(picture(true, 0), 0, undefined);
  assert.equal(withAudio.settled, false, 'the audio is placed by its arrival: read it on the short tick');
  now += 30;
  withAudio.pushAudio(Buffer.from([0x21, 0x00]), 0);
  assert.equal(withAudio.settled, true);

  const silent = make();
  silent.setAudio(aac);
  silent.setParameterSets(sets);
  silent.pushVideo(picture(true, 0), 0, undefined);
  now += 1_999;
  assert.equal(silent.settled, false);
  now += 1;
  assert.equal(silent.settled, true, 'audio announced but never sent is not waited for');
});

test('every track chains exactly from fragment to fragment, held or not, across a new init segment, whatever the camera’s jitter; a lost audio frame leaves its gap', () => {
  const out: MediaFragment[] = [];
  const inits: InitSegment[] = [];
  let now = 10_000;
  let watched = false;
  const assembler = new NativeStreamAssembler({ onInit: (i) => inits.push(i), onFragment: (f) => out.push({ ...f, data: Buffer.from(f.data) }) }, { audio: undefined, now: () => now, mayHoldPictures: () => !watched });
  assembler.setAudio(AAC_MONO_48K);
  assembler.setParameterSets(sets);
  let seed = 3;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let audioFrame = 0;
  for (let n = 0; n < 250; n++) {
    // Pictures every 40 ms with ±5 ms of timestamp jitter; audio frames every 21.3 ms with ±2 ms, one of them lost.
    assembler.pushVideo(picture(n % 25 === 0, n * 3600), n * 3600 + Math.round((random() - 0.5) * 900), undefined);
    while (audioFrame * 1024 < (n + 1) * 1920) {
      if (audioFrame !== 100) assembler.pushAudio(Buffer.from([0xaa, audioFrame & 0xff]), 5_000 + audioFrame * 1024 + Math.round((random() - 0.5) * 192));
      audioFrame++;
    }
    now += 40;
    if (n === 60) watched = true;
    if (n === 150) watched = false;
    // The camera changes its PPS: a new init segment at the next keyframe (picture 175).
    if (n === 160) assembler.setParameterSets({ codec: 'h264', sps: SPS, pps: [Buffer.from('68cb83cb21', 'hex')] });
  }
  assembler.sendHeld();
  assert.equal(inits.length, 2);
  const tracks = (inits[0] as InitSegment).tracks;
  const breaks = chainBreaks(out.map((f) => f.data), tracks);
  assert.deepEqual(breaks.map((b) => [b.trackId, b.ticks]), [[2, 1024]], 'only the lost audio frame left a gap, of one frame');
  assert.ok(out.some((f) => f.sampleCount === 1) && out.some((f) => (f.sampleCount ?? 0) > 1), 'both held and per-picture fragments');
});
