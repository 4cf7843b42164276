// URL handling (default ports, credentials, redaction, redirects) and the Session, Transport and RTP-Info headers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchRtpInfoUrl, parseRtpInfo, parseSessionHeader, parseTransport } from '../../src/rtsp/rtsp-session-headers.js';
import { parseRtspUrl, resolveLocation } from '../../src/rtsp/rtsp-url.js';

test('rtsp URLs: default ports, percent-decoded credentials kept out of the request URL and the redacted form', () => {
  const u = parseRtspUrl('rtsp://ad%40min:p%3Ass%25w@cam.local/Streaming/Channels/101?transportmode=unicast');
  assert.deepEqual(u.credentials, { user: 'ad@min', password: 'p:ss%w' });
  assert.equal(u.port, 554);
  assert.equal(u.tls, false);
  assert.equal(u.requestUrl, 'rtsp://cam.local/Streaming/Channels/101?transportmode=unicast');
  assert.equal(u.redacted, u.requestUrl);
  const s = parseRtspUrl('rtsps://[::1]:8322/live');
  assert.equal(s.tls, true);
  assert.equal(s.host, '::1');
  assert.equal(s.port, 8322);
  assert.equal(parseRtspUrl('rtsps://cam/x').port, 322);
  assert.equal(parseRtspUrl('rtsp://cam').credentials, undefined);
  assert.throws(() => parseRtspUrl('http://user:hunter2@cam/'), (err: Error) => !err.message.includes('hunter2') && err.message.includes('***@cam'));
});

test('redirects keep the credentials only on the same host, and not from rtsps down to rtsp', () => {
  const from = parseRtspUrl('rtsp://u:pw@cam:554/a');
  assert.deepEqual(resolveLocation(from, '/b', from.credentials).credentials, { user: 'u', password: 'pw' });
  assert.equal(resolveLocation(from, 'rtsp://cam:554/c', from.credentials).requestUrl, 'rtsp://cam:554/c');
  assert.deepEqual(resolveLocation(from, 'rtsp://CAM:8554/c', from.credentials).credentials, { user: 'u', password: 'pw' });
  assert.deepEqual(resolveLocation(from, 'rtsps://cam/c', from.credentials).credentials, { user: 'u', password: 'pw' });
  assert.equal(resolveLocation(from, 'rtsp://other/c', from.credentials).credentials, undefined);
  const secure = parseRtspUrl('rtsps://u:pw@cam/a');
  assert.equal(resolveLocation(secure, 'rtsp://cam/c', secure.credentials).credentials, undefined);
  assert.deepEqual(resolveLocation(from, 'rtsp://x:y@other/c', from.credentials).credentials, { user: 'x', password: 'y' });
});

test('Session header: id and timeout, 60 s by default', () => {
  assert.deepEqual(parseSessionHeader('47112344;timeout=30'), { id: '47112344', timeoutS: 30 });
  assert.deepEqual(parseSessionHeader('ABCdef'), { id: 'ABCdef', timeoutS: 60 });
  assert.deepEqual(parseSessionHeader('x1 ; timeout = 5'), { id: 'x1', timeoutS: 5 });
});

test('Transport header: interleaved channels, UDP ports, ssrc', () => {
  const tcp = parseTransport('RTP/AVP/TCP;unicast;interleaved=2-3;ssrc=1A2B3C4D;mode="PLAY"');
  assert.equal(tcp.protocol, 'RTP/AVP/TCP');
  assert.deepEqual(tcp.interleaved, [2, 3]);
  assert.equal(tcp.ssrc, 0x1a2b3c4d);
  const udp = parseTransport('RTP/AVP;unicast;client_port=5000-5001;server_port=6970-6971;source=10.0.0.5');
  assert.deepEqual(udp.clientPorts, [5000, 5001]);
  assert.deepEqual(udp.serverPorts, [6970, 6971]);
  assert.equal(udp.source, '10.0.0.5');
  assert.equal(parseTransport('RTP/AVP/TCP;interleaved=300-301').interleaved, undefined);
});

test('RTP-Info: several tracks, matched to control URLs exactly or by suffix', () => {
  const entries = parseRtpInfo('url=rtsp://h/cam/trackID=1;seq=9810;rtptime=3450012,url=trackID=2;seq=200;rtptime=4294967295');
  assert.deepEqual(entries, [
    { url: 'rtsp://h/cam/trackID=1', seq: 9810, rtptime: 3450012 },
    { url: 'trackID=2', seq: 200, rtptime: 4294967295 },
  ]);
  const controls = ['rtsp://h/cam/trackID=1', 'rtsp://h/cam/trackID=2'];
  assert.equal(matchRtpInfoUrl('rtsp://h/cam/trackID=1', controls), 0);
  assert.equal(matchRtpInfoUrl('trackID=2', controls), 1);
  assert.equal(matchRtpInfoUrl('rtsp://10.0.0.1:554/cam/trackID=2', controls), 1);
  assert.equal(matchRtpInfoUrl('rtsp://h/other', controls), undefined);
});
