// The ffmpeg command line per source kind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cameraFromConfig } from '../../src/cameras/camera.js';
import { configSchema } from '../../src/config/schema.js';
import { buildIngestArgs, parseTestsrc, sourceKind } from '../../src/ingest/ffmpeg-args.js';

const config = configSchema.parse({ auth: { disabled: true } });
const cam = (source: string, audio: 'auto' | 'off' | 'transcode' = 'auto', transport: 'tcp' | 'udp' = 'tcp') => cameraFromConfig({ id: 'c', source, ptz: false, audio, rtsp_transport: transport }, config);

test('source kinds', () => {
  assert.equal(sourceKind('rtsp://u:p@h/x'), 'rtsp');
  assert.equal(sourceKind('RTSPS://h/x'), 'rtsp');
  assert.equal(sourceKind('testsrc:'), 'testsrc');
  assert.equal(sourceKind('/data/loop.mp4'), 'file');
  assert.equal(sourceKind('file:/data/loop.mp4'), 'file');
});

test('rtsp over TCP, stream copy, fragmented MP4 of 200 ms on stdout', () => {
  const args = buildIngestArgs(cam('rtsp://u:p@h/x'), { fragmentMicros: 200_000, audioAllowed: true });
  const s = args.join(' ');
  assert.match(s, /-rtsp_transport tcp .*-i rtsp:\/\/u:p@h\/x/);
  assert.match(s, /-map 0:v:0 -c:v copy -map 0:a:0\? -c:a copy/);
  assert.match(s, /-movflags frag_keyframe\+empty_moov\+default_base_moof\+skip_trailer -frag_duration 200000 pipe:1$/);
});

test('rtsp_transport: udp is passed to ffmpeg', () => {
  assert.match(buildIngestArgs(cam('rtsp://h/x', 'auto', 'udp'), { fragmentMicros: 1, audioAllowed: true }).join(' '), /-rtsp_transport udp -timeout/);
});

test('audio: off drops it, transcode makes AAC, a refused codec falls back to video only', () => {
  assert.doesNotMatch(buildIngestArgs(cam('rtsp://h/x', 'off'), { fragmentMicros: 1, audioAllowed: true }).join(' '), /0:a/);
  assert.match(buildIngestArgs(cam('rtsp://h/x', 'transcode'), { fragmentMicros: 1, audioAllowed: true }).join(' '), /-c:a aac/);
  assert.doesNotMatch(buildIngestArgs(cam('rtsp://h/x'), { fragmentMicros: 1, audioAllowed: false }).join(' '), /0:a/);
});

test('a file loops in real time; testsrc encodes with libx264 at the asked size, rate and GOP', () => {
  assert.match(buildIngestArgs(cam('file:/v/a.mp4'), { fragmentMicros: 1, audioAllowed: true }).join(' '), /-re -stream_loop -1 -i \/v\/a\.mp4/);
  const t = buildIngestArgs(cam('testsrc:size=640x360&rate=10&gop=20'), { fragmentMicros: 1, audioAllowed: true }).join(' ');
  assert.match(t, /testsrc2=size=640x360:rate=10/);
  assert.match(t, /-c:v libx264 .*-g 20/);
  assert.deepEqual(parseTestsrc('testsrc:'), { size: '1280x720', rate: 25, gop: 50, bitrate: '2000k' });
});
