// Credentials are cut out of URLs and text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactText, redactUrl, urlCredentials } from '../../src/util/redact.js';

test('URL userinfo becomes ***', () => {
  assert.equal(redactUrl('rtsp://admin:s3cret@10.0.0.5:554/stream1'), 'rtsp://***@10.0.0.5:554/stream1');
  assert.equal(redactUrl('rtsps://user@cam/x'), 'rtsps://***@cam/x');
  assert.equal(redactUrl('rtsp://cam/x'), 'rtsp://cam/x');
});

test('password parameters and literal secrets are masked in free text', () => {
  assert.equal(redactText('GET /snap?user=a&password=hunter2 failed'), 'GET /snap?user=a&password=*** failed');
  const line = JSON.stringify({ msg: `auth failed for p@ss"word and p%40ss%22word` });
  assert.doesNotMatch(redactText(line, ['p@ss"word']), /p@ss|p%40ss/);
});

test('credentials are read from a URL, decoded', () => {
  assert.deepEqual(urlCredentials('rtsp://ad%40min:p%3Ass@h/'), { username: 'ad@min', password: 'p:ss' });
  assert.equal(urlCredentials('rtsp://h/'), undefined);
  assert.equal(urlCredentials('testsrc:'), undefined);
});
