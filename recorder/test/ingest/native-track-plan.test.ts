// Which tracks native ingest takes from a camera's SDP, and what sends a camera to ffmpeg.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planTracks } from '../../src/ingest/native-track-plan.js';
import { parseSdp } from '../../src/rtsp/sdp.js';

function sdp(video: string, audio?: string): ReturnType<typeof parseSdp> {
  const lines = ['v=0', 'o=- 0 0 IN IP4 127.0.0.1', 's=cam', 't=0 0', 'm=video 0 RTP/AVP 96', `a=rtpmap:96 ${video}/90000`, 'a=control:stream=0'];
  if (audio !== undefined) lines.push(`m=audio 0 RTP/AVP ${audio === 'PCMU' ? '0' : '97'}`, ...(audio === 'PCMU' ? [] : [`a=rtpmap:97 ${audio}/48000/1`, 'a=fmtp:97 streamtype=5;mode=AAC-hbr;config=1188;sizelength=13;indexlength=3;indexdeltalength=3']), 'a=control:stream=1');
  return parseSdp(`${lines.join('\r\n')}\r\n`, 'rtsp://127.0.0.1/cam');
}

test('H.264 with AAC: both tracks', () => {
  const plan = planTracks(sdp('H264', 'MPEG4-GENERIC'), 'auto');
  assert.ok(plan.ok);
  assert.equal(plan.video.encoding, 'H264');
  assert.equal(plan.audio?.encoding, 'MPEG4-GENERIC');
  assert.equal(plan.audio?.fmtp['sizelength'], '13');
});

test('G.711 audio is left out in auto, but needs ffmpeg to transcode', () => {
  const auto = planTracks(sdp('H265', 'PCMU'), 'auto');
  assert.ok(auto.ok);
  assert.equal(auto.audio, undefined);
  assert.equal(auto.audioSkipped, 'PCMU');
  assert.deepEqual(planTracks(sdp('H265', 'PCMU'), 'transcode'), { ok: false, unsupported: 'audio PCMU to transcode into AAC' });
  const off = planTracks(sdp('H264', 'MPEG4-GENERIC'), 'off');
  assert.ok(off.ok && off.audio === undefined && off.audioSkipped === undefined, 'audio: off takes no audio and says nothing');
});

test('a video codec other than H.264/H.265 goes to ffmpeg', () => {
  assert.deepEqual(planTracks(sdp('JPEG'), 'auto'), { ok: false, unsupported: 'video codec JPEG' });
});
