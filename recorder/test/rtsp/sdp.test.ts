// SDP parsing: camera-like sessions with H.264 and MPEG4-GENERIC audio, absolute and relative controls, Content-Base.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultMediaIndexes } from '../../src/rtsp/rtsp-session.js';
import { parseFmtpParams, parseSdp, resolveControl } from '../../src/rtsp/sdp.js';

const HIKVISION_LIKE = [
  'v=0',
  'o=- 1109162014219182 1109162014219192 IN IP4 192.168.1.64',
  's=Media Presentation',
  'e=NONE',
  'b=AS:5100',
  't=0 0',
  'a=control:rtsp://192.168.1.64:554/Streaming/Channels/101/?transportmode=unicast',
  'm=video 0 RTP/AVP 96',
  'c=IN IP4 0.0.0.0',
  'b=AS:5000',
  'a=recvonly',
  'a=x-dimensions:1920,1080',
  'a=control:rtsp://192.168.1.64:554/Streaming/Channels/101/trackID=1?transportmode=unicast',
  'a=rtpmap:96 H264/90000',
  'a=fmtp:96 profile-level-id=420029; packetization-mode=1; sprop-parameter-sets=Z00AKpY1QPAET8s3AQEBAg==,aO48gA==',
  'a=framerate:25.000',
  'm=audio 0 RTP/AVP 97',
  'c=IN IP4 0.0.0.0',
  'b=AS:50',
  'a=recvonly',
  'a=control:rtsp://192.168.1.64:554/Streaming/Channels/101/trackID=2?transportmode=unicast',
  'a=rtpmap:97 MPEG4-GENERIC/16000/1',
  'a=fmtp:97 streamtype=5;profile-level-id=15;mode=AAC-hbr;config=1408;SizeLength=13;IndexLength=3;IndexDeltaLength=3;Profile=1;',
  'a=Media_header:MEDIAINFO=494D4B48010200000400000111710110401F000000FA000000000000000000000000000000000000;',
  '',
].join('\r\n');

const AXIS_LIKE = [
  'v=0',
  'o=- 12345 1 IN IP4 10.0.0.5',
  's=Session streamed with GStreamer',
  't=0 0',
  'a=control:*',
  'a=range:npt=now-',
  'm=video 0 RTP/AVP 96',
  'a=rtpmap:96 H264/90000',
  'a=fmtp:96 packetization-mode=1;profile-level-id=4d0029;sprop-parameter-sets=Z00AKeKQDwBE/LgLcBAQFAAAPoAADqYOhgBGoAAjUi7y40MAI1AAEakXeXCg,aO48gA==',
  'a=control:trackID=1',
  'm=audio 0 RTP/AVP 0',
  'a=control:trackID=2',
  'm=application 0 RTP/AVP 98',
  'a=rtpmap:98 vnd.onvif.metadata/90000',
  'a=control:/other/path/meta',
  'a=sendonly',
].join('\n'); // LF-only lines, as some cameras send

test('a Hikvision-like SDP: absolute controls, H.264 fmtp, MPEG4-GENERIC audio with channels', () => {
  const base = 'rtsp://192.168.1.64:554/Streaming/Channels/101';
  const sdp = parseSdp(HIKVISION_LIKE, base);
  assert.equal(sdp.sessionName, 'Media Presentation');
  assert.equal(sdp.controlUrl, 'rtsp://192.168.1.64:554/Streaming/Channels/101/?transportmode=unicast');
  assert.equal(sdp.media.length, 2);
  const [video, audio] = sdp.media;
  assert.ok(video !== undefined && audio !== undefined);
  assert.equal(video.type, 'video');
  assert.equal(video.index, 0);
  assert.equal(video.proto, 'RTP/AVP');
  assert.deepEqual(video.payloadTypes, [96]);
  assert.deepEqual(video.rtpmap.get(96), { encodingName: 'H264', clockRate: 90000, channels: undefined });
  assert.deepEqual(video.fmtp.get(96), {
    'profile-level-id': '420029',
    'packetization-mode': '1',
    'sprop-parameter-sets': 'Z00AKpY1QPAET8s3AQEBAg==,aO48gA==',
  });
  assert.equal(video.controlUrl, 'rtsp://192.168.1.64:554/Streaming/Channels/101/trackID=1?transportmode=unicast');
  assert.equal(video.direction, 'recvonly');
  assert.equal(video.framerate, 25);
  assert.equal(audio.type, 'audio');
  assert.deepEqual(audio.rtpmap.get(97), { encodingName: 'MPEG4-GENERIC', clockRate: 16000, channels: 1 });
  const fmtp = audio.fmtp.get(97);
  assert.equal(fmtp?.['mode'], 'AAC-hbr');
  assert.equal(fmtp?.['config'], '1408');
  assert.equal(fmtp?.['sizelength'], '13', 'keys are lower-cased');
  assert.equal(fmtp?.['indexdeltalength'], '3');
  assert.equal(audio.controlUrl, 'rtsp://192.168.1.64:554/Streaming/Channels/101/trackID=2?transportmode=unicast');
  assert.deepEqual(defaultMediaIndexes(sdp), [0, 1]);
});

test('an Axis-like SDP: relative controls resolve against Content-Base, static payload types are known', () => {
  const sdp = parseSdp(AXIS_LIKE, 'rtsp://10.0.0.5/axis-media/media.amp/');
  assert.equal(sdp.controlUrl, 'rtsp://10.0.0.5/axis-media/media.amp/', "'*' is the base");
  assert.equal(sdp.range, 'npt=now-');
  const [video, audio, meta] = sdp.media;
  assert.ok(video !== undefined && audio !== undefined && meta !== undefined);
  assert.equal(video.controlUrl, 'rtsp://10.0.0.5/axis-media/media.amp/trackID=1');
  assert.equal(video.fmtp.get(96)?.['sprop-parameter-sets']?.endsWith(',aO48gA=='), true);
  assert.deepEqual(audio.rtpmap.get(0), { encodingName: 'PCMU', clockRate: 8000, channels: 1 });
  assert.equal(audio.controlUrl, 'rtsp://10.0.0.5/axis-media/media.amp/trackID=2');
  assert.equal(meta.type, 'application');
  assert.equal(meta.rtpmap.get(98)?.encodingName, 'vnd.onvif.metadata');
  assert.equal(meta.controlUrl, 'rtsp://10.0.0.5/other/path/meta', 'an absolute path replaces the base path');
  assert.equal(meta.direction, 'sendonly');
});

test('relative controls are appended to a base without a trailing slash (as cameras expect)', () => {
  assert.equal(resolveControl('rtsp://h/cam', 'trackID=1'), 'rtsp://h/cam/trackID=1');
  assert.equal(resolveControl('rtsp://h/cam/', 'trackID=1'), 'rtsp://h/cam/trackID=1');
  assert.equal(resolveControl('rtsp://h/cam', undefined), 'rtsp://h/cam');
  assert.equal(resolveControl('rtsp://h/cam', 'rtsp://other:8554/x'), 'rtsp://other:8554/x');
  const sdp = parseSdp('v=0\r\ns=x\r\nm=video 0 RTP/AVP 26\r\na=control:stream=0\r\n', 'rtsp://h:8554/live');
  assert.equal(sdp.media[0]?.controlUrl, 'rtsp://h:8554/live/stream=0');
  assert.equal(sdp.controlUrl, 'rtsp://h:8554/live');
  assert.equal(sdp.media[0]?.rtpmap.get(26)?.encodingName, 'JPEG');
});

test('fmtp parameters: lower-cased keys, values keep their = padding, flags without a value', () => {
  assert.deepEqual(parseFmtpParams(' A=1; sprop-vps=QAEMAf//AWAAAAMAkAAAAwAAAwB4lZgJ==;flag ;'), {
    a: '1',
    'sprop-vps': 'QAEMAf//AWAAAAMAkAAAAwAAAwB4lZgJ==',
    flag: '',
  });
});

test('an SDP without media is refused', () => {
  assert.throws(() => parseSdp('v=0\r\ns=empty\r\n', 'rtsp://h/'), /no media/);
});
