// The cluster token is read again when its file changes (a rotated Kubernetes Secret), and a known-peer list admits nothing else.
import assert from 'node:assert/strict';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileClusterToken } from '../../src/peers/cluster-token.js';
import { staticPeerDirectory } from '../../src/peers/peer-directory.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { ManualClock, testLogger } from '../support/fakes.js';

test('a rotated token file is used without a restart; a missing file means no token, and says so once', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'token');
  await writeFile(file, 'first-token\n');
  const clock = new ManualClock();
  const { log, text } = testLogger();
  const token = fileClusterToken(file, log, clock);
  assert.equal(token.current(), 'first-token');
  // Kubernetes swaps a mounted Secret by renaming a new file into place.
  await writeFile(join(dir, 'next'), 'second-token');
  await rename(join(dir, 'next'), file);
  assert.equal(token.current(), 'first-token', 'looked at most once a second');
  clock.advance(1000);
  assert.equal(token.current(), 'second-token');
  await rm(file);
  clock.advance(1000);
  assert.equal(token.current(), undefined);
  clock.advance(1000);
  assert.equal(token.current(), undefined);
  assert.equal(text().split('\n').filter((l) => l.includes('cannot be used')).length, 1, 'the unreadable file is reported once');
  assert.ok(!text().includes('second-token') && !text().includes('first-token'), 'the token never reaches the log');
  await writeFile(file, 'third-token');
  clock.advance(1000);
  assert.equal(token.current(), 'third-token', 'back when the file is back');
  assert.equal(fileClusterToken(undefined, log, clock).current(), undefined);
});

test('peers: only the configured host:port pairs, as plain HTTP base URLs', () => {
  const peers = staticPeerDirectory(['10.0.0.2:9997', 'node-c.example:9997']);
  assert.equal(peers.isKnownPeer('10.0.0.2:9997'), true);
  assert.equal(peers.urlOf('node-c.example:9997'), 'http://node-c.example:9997');
  for (const other of ['10.0.0.2:22', '169.254.169.254:80', 'node-c.example:9997/x', '']) {
    assert.equal(peers.isKnownPeer(other), false, other);
    assert.equal(peers.urlOf(other), undefined, other);
  }
});
