// Delegated assembly between two recorders on loopback: cluster token, peer allow-list, a peer that is down.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { probe } from '@vigil/testing/media-probe';
import { waitUntil } from '@vigil/testing/processes';
import { sha256, startRecorderProcess } from '../support/recorder-process.js';
import { freePort } from '@vigil/testing/net';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { tempDir } from '@vigil/testing/temp-dir';
import { segmentFiles } from './helpers.js';
import { assembleExport, exportTwoParts, submit, waitForJob } from './jobs-helpers.js';

const OPERATOR = 'assemble-operator-token';
const CLUSTER = 'shared-cluster-secret';

test('assemble joins parts fetched from a known peer; unknown peers are refused, a down peer fails the job', { timeout: 150_000 }, async (t) => {
  const dirA = await tempDir(t);
  const dirB = await tempDir(t);
  const tokenFile = join(dirA, 'cluster.token');
  await writeFile(tokenFile, `${CLUSTER}\n`);
  const camera = await startRtspCamera({ width: 320, height: 240, fps: 25, gop: 25 });
  t.after(() => camera.stop());
  const auth = { tokens: [{ name: 'op', role: 'operator', sha256: sha256(OPERATOR) }], cluster_token_file: tokenFile };
  const a = await startRecorderProcess({ dir: dirA, config: { auth, record: { segment_seconds: 2 }, cameras: [{ id: 'acam', source: camera.url }] } });
  t.after(() => a.stop());
  const aAddr = new URL(a.url).host;
  const downAddr = `127.0.0.1:${await freePort()}`;
  const b = await startRecorderProcess({ dir: dirB, config: { auth, cluster: { peers: [aAddr, downAddr] }, cameras: [] } });
  t.after(() => b.stop());

  // Five closed 2 s segments: the windows below reach 8 s back, and native ingest names files by capture time, so
  // nothing older than the first file may be asked for.
  await waitUntil(async () => (await segmentFiles(a.recordPath)).length >= 6, 40_000, 'recordings on A');
  const inOrder = await exportTwoParts(a.url, 'acam', 3, OPERATOR);

  // The cluster token is accepted by /assemble; parts are fetched from A with it, joined by ordinal (given last first).
  const parts = [...inOrder].reverse();
  const joined = await assembleExport(b, 'acam', parts, CLUSTER, OPERATOR);
  assert.equal(joined.errors, '');
  assert.ok(Math.abs(joined.playSeconds - 6) <= 1.1, `two 3 s parts make ${joined.playSeconds}s`);

  // Time-lapse assembly: the extra pass divides timestamps by speed.
  const tl = await submit(b.url, '/api/archive/acam/assemble', OPERATOR, { kind: 'timelapse', speed: 2, parts });
  const tlDone = await waitForJob(b.url, tl.body['job_id'] as string, ['done', 'failed'], 60_000, OPERATOR);
  assert.equal(tlDone.state, 'done', tlDone.message);
  const tlProbe = await probe(join(b.workDir, 'jobs', `${tlDone.job_id}.mp4`));
  assert.ok(Math.abs(tlProbe.playSeconds - 3) <= 0.6, `6 s at speed 2 make ${tlProbe.playSeconds}s`);

  // Never a host outside the peer list; no token, no assembly.
  const refused = await submit(b.url, '/api/archive/acam/assemble', OPERATOR, { kind: 'export', parts: [{ peer_addr: '169.254.169.254:80', peer_job_id: 'x', ordinal: 0 }] });
  assert.equal(refused.status, 400);
  assert.equal((refused.body['error'] as { code: string }).code, 'unknown_peer');
  assert.equal((await submit(b.url, '/api/archive/acam/assemble', undefined, { kind: 'export', parts })).status, 401);
  assert.equal((await submit(b.url, '/api/archive/acam/assemble', OPERATOR, { kind: 'timelapse', speed: 500, parts })).status, 400);
  assert.equal((await submit(b.url, '/api/archive/acam/assemble', OPERATOR, { kind: 'export', parts: [{ ...parts[0], extra: true }] })).status, 400);

  // A known peer that is down fails the job with peer_unreachable naming it.
  const down = await submit(b.url, '/api/archive/acam/assemble', OPERATOR, { kind: 'export', parts: [parts[0], { peer_addr: downAddr, peer_job_id: 'abcdef0123456789', ordinal: 2 }] });
  const downDone = await waitForJob(b.url, down.body['job_id'] as string, ['done', 'failed'], 60_000, OPERATOR);
  assert.equal(downDone.state, 'failed');
  assert.equal(downDone.reason, 'peer_unreachable');
  assert.match(downDone.message ?? '', new RegExp(downAddr.replace(/\./g, '\\.')));
});
