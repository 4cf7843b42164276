// Real x264/x265 B-frame streams through the native assembler: ffmpeg decodes every picture, in presentation order, frame-exact.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { NativeStreamAssembler } from '../../src/ingest/native-stream-assembler.js';
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';
import type { ParameterSets, VideoAccessUnit } from '../../src/rtp/access-unit.js';
import { groupAccessUnits, splitAnnexB, type VideoCodec } from '../media/annexb.js';
import { run, tempDir } from '../media/fixtures.js';

const FRAMES = 75;

/** A 3 s encode kept as MP4 (for the pictures' presentation times and the reference decode) and as Annex-B. */
async function encode(dir: string, codec: VideoCodec, args: string[]): Promise<{ mp4: string; nals: Buffer[]; pts: number[] }> {
  const mp4 = join(dir, 'source.mp4');
  const raw = join(dir, 'source.es');
  await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=25', '-frames:v', String(FRAMES), '-c:v', codec === 'h264' ? 'libx264' : 'libx265', ...args, mp4]);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', mp4, '-c:v', 'copy', '-bsf:v', codec === 'h264' ? 'h264_mp4toannexb' : 'hevc_mp4toannexb', '-f', codec === 'h264' ? 'h264' : 'hevc', raw]);
  const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time', '-of', 'csv=p=0', mp4]);
  return { mp4, nals: splitAnnexB(await readFile(raw)), pts: stdout.split('\n').filter((l) => l.trim() !== '').map((l) => Math.round(Number(l) * 90_000)) };
}

/** Each decoded picture's MD5, in presentation order (ffmpeg's framemd5 of the video stream). */
async function pictureDigests(path: string): Promise<string[]> {
  const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', path, '-map', '0:v:0', '-fps_mode', 'passthrough', '-f', 'framemd5', '-']);
  return stdout.split('\n').filter((l) => !l.startsWith('#') && l.trim() !== '').map((l) => l.split(',').at(-1)?.trim() ?? '');
}

const cases: Array<{ name: string; codec: VideoCodec; args: string[] }> = [
  { name: 'H.264 High, 2 B-frames', codec: 'h264', args: ['-profile:v', 'high', '-bf', '2', '-b_strategy', '0', '-x264-params', 'b-pyramid=none', '-g', '25'] },
  { name: 'H.264 High, 3 B-frames in a pyramid', codec: 'h264', args: ['-profile:v', 'high', '-bf', '3', '-b_strategy', '0', '-x264-params', 'b-pyramid=normal', '-g', '25'] },
  { name: 'H.265, 4 B-frames, closed GOP', codec: 'h265', args: ['-x265-params', 'bframes=4:keyint=25:min-keyint=25:open-gop=0:scenecut=0:log-level=error'] },
];

for (const c of cases) {
  test(`${c.name} through the native assembler: every picture decodes, in presentation order, frame-exact, fragments chain`, async (t) => {
    const dir = await tempDir(t);
    const { mp4, nals, pts } = await encode(dir, c.codec, c.args);
    const { params, units } = groupAccessUnits(c.codec, nals);
    assert.equal(units.length, FRAMES);
    assert.ok(pts.some((p, i) => i > 0 && p < (pts[i - 1] as number)), 'the source really reorders its pictures');
    const sets: ParameterSets = { codec: c.codec, ...(params.vps === undefined ? {} : { vps: params.vps }), sps: params.sps, pps: params.pps };
    const inits: InitSegment[] = [];
    const fragments: MediaFragment[] = [];
    // Held batches while "nobody watches", one picture per fragment once "somebody" does: both, and the switch.
    let watched = false;
    const assembler = new NativeStreamAssembler({ onInit: (i) => inits.push(i), onFragment: (f) => fragments.push({ ...f, data: Buffer.from(f.data) }) }, { audio: undefined, mayHoldPictures: () => !watched });
    assembler.setParameterSets(sets);
    const base = 123_456_789;
    units.forEach((u, i) => {
      if (i === 30) watched = true;
      const au: VideoAccessUnit = { kind: 'video', codec: c.codec, nalus: u.nalus, bytes: u.nalus.reduce((n, b) => n + b.length, 0), rtpTimestamp: 0, keyframe: u.keyframe, receivedAt: 0, parameterSetsVersion: 1 };
      assembler.pushVideo(au, base + (pts[i] as number), undefined);
    });
    assembler.sendHeld();
    assert.equal(inits.length, 1);
    assert.deepEqual(assembler.videoEvents, { clockSteps: 0, reorderGrowths: 0, reorderDepth: assembler.videoEvents.reorderDepth });
    assert.ok(assembler.videoEvents.reorderDepth > 0, 'the SPS announced the reordering');
    fragments.forEach((f, i) => {
      const next = fragments[i + 1];
      if (next !== undefined) assert.equal(Math.round((f.decodeTime + f.duration) * 90_000), Math.round(next.decodeTime * 90_000), `fragment ${i + 1} starts where ${i} ended`);
    });
    const file = join(dir, 'native.mp4');
    await writeFile(file, Buffer.concat([(inits[0] as InitSegment).data, ...fragments.map((f) => f.data)]));
    const { stderr } = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-']);
    assert.equal(stderr.trim(), '', 'decodes without an error');
    assert.deepEqual(await pictureDigests(file), await pictureDigests(mp4), 'the same pictures as the source, in the same order');
    // Presentation times: one picture every 40 ms from the first, as the camera sent them.
    const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file]);
    // (ffprobe ends some lines with a comma: the frame's side data.)
    const shown = stdout.split('\n').map((l) => l.replace(/,.*$/, '').trim()).filter((l) => l !== '').map((l) => Math.round(Number(l) * 1000));
    assert.equal(shown.length, FRAMES);
    shown.forEach((ms, i) => assert.equal(ms - (shown[0] as number), i * 40, `picture ${i} at ${ms} ms`));
  });
}
