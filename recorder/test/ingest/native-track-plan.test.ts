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

function latmSdp(fmtp: string): ReturnType<typeof parseSdp> {
  const lines = ['v=0', 'o=- 0 0 IN IP4 127.0.0.1', 's=cam', 't=0 0', 'm=video 0 RTP/AVP 96', 'a=rtpmap:96 H264/90000', 'a=control:stream=0',
    'm=audio 0 RTP/AVP 97', 'a=rtpmap:97 MP4A-LATM/48000/1', ...(fmtp === '' ? [] : [`a=fmtp:97 ${fmtp}`]), 'a=control:stream=1'];
  return parseSdp(`${lines.join('\r\n')}\r\n`, 'rtsp://127.0.0.1/cam');
}

test('AAC sent as MP4A-LATM is kept when the SDP gives its StreamMuxConfig', () => {
  const plan = planTracks(latmSdp('profile-level-id=41;cpresent=0;config=400023103fc0'), 'auto');
  assert.ok(plan.ok);
  assert.equal(plan.audio?.encoding, 'MP4A-LATM');
  assert.equal(plan.audioSkipped, undefined);
});

test('MP4A-LATM with its configuration only in-band is left out in auto (and names why), and sent to ffmpeg to transcode', () => {
  const auto = planTracks(latmSdp('cpresent=1'), 'auto');
  assert.ok(auto.ok && auto.audio === undefined);
  assert.match(auto.audioSkipped ?? '', /MP4A-LATM without config=/);
  const transcode = planTracks(latmSdp(''), 'transcode');
  assert.ok(!transcode.ok);
  assert.match(transcode.unsupported, /^audio MP4A-LATM without config=.* to transcode into AAC$/);
});
