// The cluster end to end on loopback (one cluster, scenarios in turn; the recorders are the operator's Pods, run by the
// process kubelet): any node answers, 307s (playback too), planned move, a node lost, leader loss, cut-off, quorum, a
// recorder killed -9 and restarted by the kubelet.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Camera } from '@vigil/crds';
import { waitUntil } from '@vigil/testing/processes';
import { listSegments } from '@vigil/testing/kube/cluster-scenario';
import { archiveGap, nodeDriver, recordingRows } from './cluster-archive.js';
import { CAMERA_PASSWORD, cameraManifests, startLoopbackCluster, TOKENS, type LoopbackCluster } from './cluster-fixture.js';
import { assertWriteBudget } from './cluster-write-budget.js';
import { fetchBytes, wholeBoxes } from './playback-helpers.js';

const NODES = ['node-a', 'node-b', 'node-c'];
const NAMES = ['cam-1', 'cam-2', 'cam-3', 'cam-4', 'cam-5', 'cam-6'];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function camerasOf(fx: LoopbackCluster): Promise<Map<string, Camera>> {
  return new Map((await fx.cluster.cameras()).map((c) => [c.metadata.name ?? '', c]));
}

/** Each RecorderNode's status.url and each Camera's status node and url, as the API holds them (for failure messages). */
async function nodeUrls(fx: LoopbackCluster): Promise<string> {
  const rns = await fx.cluster.recorderNodes();
  const cameras = [...(await camerasOf(fx)).entries()];
  return [
    ...rns.map((rn) => `RecorderNode ${rn.metadata?.name} (rv ${rn.metadata?.resourceVersion}): url=${rn.status?.url ?? '-'}`),
    ...cameras.map(([name, cam]) => `Camera ${name}: node=${cam.status?.node ?? '-'} url=${cam.status?.url ?? '-'}`),
  ].join('\n');
}

/** No planned move under way: no Camera names a node it is being handed over from. */
function noMoveInFlight(cameras: Map<string, Camera>): boolean {
  return [...cameras.values()].every((c) => c.status?.handoverFrom === undefined);
}

function onNode(cameras: Map<string, Camera>, node: string): string[] {
  return [...cameras.values()].filter((c) => c.status?.node === node).map((c) => c.metadata.name ?? '').sort();
}

/** Every camera Recording, none on the excluded nodes. */
async function allRecording(fx: LoopbackCluster, excluded: readonly string[] = []): Promise<boolean> {
  const cams = [...(await camerasOf(fx)).values()];
  return cams.length === NAMES.length && cams.every((c) => c.status?.phase === 'Recording' && c.status.recordingNode === c.status.node && !excluded.includes(c.status.node ?? ''));
}

/** Waits for allRecording; a timeout says where every camera stands (phase, node, recording node, reason). */
async function waitAllRecording(fx: LoopbackCluster, excluded: readonly string[], timeoutMs: number, what: string): Promise<void> {
  try {
    await waitUntil(() => allRecording(fx, excluded), timeoutMs, what);
  } catch (err) {
    const cams = [...(await camerasOf(fx)).values()].map((c) => {
      const s = c.status;
      const reason = s?.conditions?.find((k) => k.status !== 'True')?.reason ?? '';
      return `${c.metadata.name}: ${s?.phase} node=${s?.node} recordingNode=${s?.recordingNode} handoverFrom=${s?.handoverFrom ?? '-'} ${reason}`;
    });
    throw new Error(`${(err as Error).message}\n${cams.join('\n')}`);
  }
}

/** Closed segment files of a camera on a node's disk (the open one excluded). */
async function filesOnDisk(fx: LoopbackCluster, node: string, camera: string): Promise<string[]> {
  const root = fx.pods.get(node)?.hostPaths['/var/lib/vigil/recordings'];
  if (root === undefined) return [];
  const out: string[] = [];
  for (const day of await readdir(join(root, camera)).catch(() => [] as string[])) {
    for (const f of await readdir(join(root, camera, day))) if (f.endsWith('.mp4')) out.push(`${camera}/${day}/${f}`);
  }
  return out;
}

test('the cluster on loopback: any node answers, planned moves without gaps, failover within 20 s, cut-off and quorum', { timeout: 600_000 }, async (t) => {
  const fx = await startLoopbackCluster(t, { nodes: NODES, cameraCount: NAMES.length });
  const answers: string[] = [];

  await t.test('kubectl apply of six Cameras: all record, two per node once the nodes settle; kubectl get cameras shows them', async () => {
    let cams0 = new Map<string, Camera>();
    const file = join(fx.cluster.dir, 'cameras.yaml');
    await writeFile(file, cameraManifests(fx, NAMES));
    await fx.cluster.kubectl('apply', '-n', fx.cluster.namespace, '-f', file);
    // Balanced once the nodes have settled: a node takes cameras once it has been online a while, and a node that
    // settled later gets its share by planned moves (docs/kubernetes.md §4), so the first placement may be uneven.
    const balanced = async (): Promise<boolean> => {
      if (!(await allRecording(fx))) return false;
      cams0 = await camerasOf(fx);
      return NODES.map((n) => onNode(cams0, n).length).join() === '2,2,2';
    };
    await waitUntil(balanced, 120_000, 'every camera Recording, two per node').catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await nodeUrls(fx)}`);
    });
    // kubectl shows each camera's node and phase (read again until no move happens between the two reads).
    let table = '';
    await waitUntil(async () => {
      table = await fx.cluster.kubectl('get', 'cameras', '-n', fx.cluster.namespace);
      const cams = await camerasOf(fx);
      return [...cams].every(([name, cam]) => new RegExp(`${name}\\s+${cam.status?.node}\\s+Recording`).test(table));
    }, 30_000, 'kubectl get cameras showing where each camera records').catch((err: Error) => {
      throw new Error(`${err.message}\n${table}`);
    });
    assert.equal(cams0.size, NAMES.length);
  });

  await t.test('at rest for 60 s (audit log): the operators write only the leader Lease, each recorder only its heartbeat', async () => {
    // At rest: every planned move finished (no handoverFrom left), then a few seconds for the last status writes.
    await waitUntil(async () => [...(await camerasOf(fx)).values()].every((c) => c.status?.handoverFrom === undefined && c.status?.recordingNode === c.status?.node), 60_000, 'no move under way');
    await sleep(10_000);
    t.diagnostic(await assertWriteBudget(fx, 60_000));
  });

  await t.test('any node answers: listing and current through a non-owner are 307s keeping the query; export reads the receiving node’s files', async () => {
    const cams = await camerasOf(fx);
    const camera = onNode(cams, 'node-a')[0] as string;
    const path = `/api/archive/${camera}/segments?from=${Math.floor(Date.now() / 1000) - 600}&to=${Math.floor(Date.now() / 1000) + 60}&tz_offset_minutes=60`;
    // Until node-b has seen node-a's own status.url it sends callers to node-a's per-node Service (the same address
    // on Kubernetes, where VIGIL_CLUSTER_ADVERTISE_URL is that Service; here the pods listen on loopback ports).
    let redirected = await fx.api('node-b', path, { token: TOKENS.viewer });
    await waitUntil(async () => {
      redirected = await fx.api('node-b', path, { token: TOKENS.viewer });
      return redirected.location === `${fx.pods.get('node-a')?.url}${path}`;
    }, 10_000, 'node-b redirecting to node-a’s advertised URL').catch(() => undefined);
    assert.equal(redirected.status, 307);
    assert.equal(redirected.location, `${fx.pods.get('node-a')?.url}${path}`);
    const { archive: listing, hops } = await listSegments(nodeDriver(fx, 'node-c'), camera, Date.now() / 1000 - 600, Date.now() / 1000 + 60);
    assert.deepEqual(hops.map((h) => new URL(h).origin), [fx.pods.get('node-c')?.url, fx.pods.get('node-a')?.url], 'asked node-c, sent to node-a');
    assert.ok(listing.some((s) => s.is_open), 'the owner adds its open segment');
    const current = await fx.api('node-c', `/api/archive/${camera}/current`, { token: TOKENS.viewer });
    assert.equal(current.status, 307);
    const followed = await fetch(current.location as string, { headers: { authorization: `Bearer ${TOKENS.viewer}` } });
    assert.equal(followed.status, 200);
    answers.push(JSON.stringify(listing), await followed.text());
    // Export never redirects: node-b has no file of this camera, so its job finds none.
    const now = Math.floor(Date.now() / 1000);
    const exp = await fx.api('node-b', `/api/archive/${camera}/export?from=${now - 60}&to=${now}`, { method: 'POST' });
    assert.equal(exp.status, 202);
    const jobUrl = (exp.body as { status_url: string }).status_url;
    let job: { state?: string; reason?: string } = {};
    await waitUntil(async () => ((job = (await fx.api('node-b', jobUrl)).body as typeof job), job.state === 'failed' || job.state === 'done'), 30_000, 'the export job ends');
    assert.deepEqual([job.state, job.reason], ['failed', 'no_recordings']);
    // Peers come from the cluster: node-b assembles node-a's export, fetched with the cluster token; other hosts are refused.
    let closed: Array<{ timestamp: string; mtime: number }> = [];
    await waitUntil(async () => {
      closed = (await listSegments(nodeDriver(fx, 'node-a'), camera, now - 600, now + 60)).archive.filter((seg) => !seg.is_open);
      return closed.length > 0;
    }, 20_000, 'a closed segment on node-a');
    const first = closed[0] as { timestamp: string; mtime: number };
    const fromA = await fx.api('node-a', `/api/archive/${camera}/export?from=${Math.floor(Date.parse(first.timestamp) / 1000)}&to=${first.mtime}`, { method: 'POST' });
    assert.equal(fromA.status, 202);
    const partId = (fromA.body as { job_id: string }).job_id;
    let part: { state?: string; reason?: string } = {};
    await waitUntil(async () => ((part = (await fx.api('node-a', `/api/archive/jobs/${partId}`)).body as typeof part), part.state === 'done' || part.state === 'failed'), 30_000, 'the part ends on node-a');
    assert.equal(part.state, 'done', `the part exported on node-a: ${JSON.stringify(part)}`);
    const peer = new URL(fx.pods.get('node-a')?.url as string).host;
    const assembled = await fx.api('node-b', `/api/archive/${camera}/assemble`, { method: 'POST', body: { kind: 'export', parts: [{ peer_addr: peer, peer_job_id: partId, ordinal: 0 }] } });
    assert.equal(assembled.status, 202, JSON.stringify(assembled.body));
    const assembleUrl = (assembled.body as { status_url: string }).status_url;
    await waitUntil(async () => ((job = (await fx.api('node-b', assembleUrl)).body as typeof job), job.state === 'failed' || job.state === 'done'), 30_000, 'the assembly ends');
    assert.equal(job.state, 'done', `assembly from a RecorderNode peer: ${JSON.stringify(job)}`);
    const stranger = await fx.api('node-b', `/api/archive/${camera}/assemble`, { method: 'POST', body: { kind: 'export', parts: [{ peer_addr: '169.254.169.254:80', peer_job_id: partId, ordinal: 0 }] } });
    assert.equal((stranger.body as { error: { code: string } }).error.code, 'unknown_peer');
    const metrics = (await fx.api('node-b', '/cluster/metrics')).body as { leader: string | null; quorum: boolean; nodes: Array<{ node_name: string; online: boolean; member: boolean }> };
    answers.push(JSON.stringify(metrics));
    assert.ok(metrics.leader === 'op-1' || metrics.leader === 'op-2', `an operator leads (${metrics.leader})`);
    assert.equal(metrics.quorum, true);
    assert.deepEqual(metrics.nodes.map((n) => [n.node_name, n.online, n.member]), NODES.map((n) => [n, true, true]));
  });

  await t.test('the playback server through a non-owner: play and a segment file are 307s to the owner, which streams them (readable cross-origin)', async () => {
    const camera = onNode(await camerasOf(fx), 'node-a')[0] as string;
    const ownerUrl = fx.pods.get('node-a')?.url as string;
    const now = Math.floor(Date.now() / 1000);
    const { archive } = await listSegments(nodeDriver(fx, 'node-c'), camera, now - 600, now + 60);
    const closed = archive.find((seg) => !seg.is_open);
    assert.ok(closed !== undefined, 'a closed segment on node-a');
    // A moment inside that closed segment (the camera may have been recording only for seconds).
    const from = Math.floor(Date.parse(closed.timestamp) / 1000) + 1;
    const playPath = `/api/archive/${camera}/play?from=${from}&to=${from + 2}`;
    const redirected = await fx.api('node-b', playPath, { token: TOKENS.viewer });
    assert.equal(redirected.status, 307);
    assert.equal(redirected.location, `${ownerUrl}${playPath}`);
    // Followed with the caller's own token in the header (nodes hold none for one another).
    const played = await fetchBytes(redirected.location as string, TOKENS.viewer);
    assert.equal(played.status, 200, played.body.toString().slice(0, 300));
    assert.equal(played.headers.get('access-control-allow-origin'), '*');
    assert.ok(Number(played.headers.get('vigil-start')) <= from, `from the keyframe at or before from (${played.headers.get('vigil-start')} for ${from})`);
    const types = wholeBoxes(played.body);
    assert.deepEqual(types.slice(0, 3), ['ftyp', 'moov', 'moof']);

    const url = closed.url as string;
    const fileAnswer = await fx.api('node-c', url, { token: TOKENS.viewer });
    assert.equal(fileAnswer.status, 307);
    assert.equal(fileAnswer.location, `${ownerUrl}${url}`);
    const file = await fetchBytes(fileAnswer.location as string, TOKENS.viewer);
    assert.equal(file.status, 200);
    assert.equal(file.body.length, closed.size, 'the whole file as listed');
  });

  await t.test('planned move: /cluster/leave hands the node’s cameras over with no gap, erases its state; add-learner + change-membership bring it back', async (st) => {
    const moving = onNode(await camerasOf(fx), 'node-c');
    const leftAt = Date.now();
    const left = await fx.api('node-c', '/cluster/leave', { method: 'POST', body: {} });
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.deepEqual(left.body, { status: 'ok', node_name: 'node-c', handed_over: 2, stopped_without_handover: 0 });
    const cams = await camerasOf(fx);
    for (const name of moving) assert.notEqual(cams.get(name)?.status?.node, 'node-c');
    assert.equal(existsSync(join(fx.pods.get('node-c')?.hostPaths['/var/lib/vigil/data'] ?? '', 'node_node-c')), false, 'cluster state erased');
    assert.deepEqual(((await fx.api('node-c', '/api/cameras')).body as Array<{ node: string }>).filter((c) => c.node === 'node-c'), [], 'node-c records nothing');
    await sleep(3000); // let the new owners close a segment past the handover
    let gaps: Array<{ name: string; gapMs: number; listing: string }>;
    try {
      gaps = await Promise.all(moving.map(async (name) => ({ name, ...(await archiveGap(fx, 'node-a', name, leftAt - 10_000, Date.now() - 1000)) })));
    } catch (err) {
      // Seen once in CI: a 307 to a node's Service name (the operator's default before the recorder writes its URL).
      throw new Error(`${(err as Error).message} (${String((err as Error).cause ?? '')}); what the API holds:\n${await nodeUrls(fx)}`);
    } finally {
      // Added back before asserting, so that a failure here does not leave the cluster without quorum for the next scenarios.
      assert.equal((await fx.api('node-a', '/cluster/add-learner', { method: 'POST', body: { node_name: 'node-c' } })).status, 200);
      assert.equal((await fx.api('node-a', '/cluster/change-membership', { method: 'POST', body: { members: NODES } })).status, 200);
      await waitUntil(async () => {
        const m = (await fx.api('node-b', '/cluster/metrics')).body as { nodes: Array<{ node_name: string; online: boolean; member: boolean }> };
        return m.nodes.every((n) => n.online && n.member);
      }, 20_000, 'node-c online and a member again');
    }
    st.diagnostic(`planned-move gaps (ms): ${gaps.map((g) => `${g.name}=${g.gapMs}`).join(' ')}`);
    for (const g of gaps) assert.ok(g.gapMs <= 1500, `${g.name}: a planned move leaves no gap (largest ${g.gapMs} ms):\n${g.listing}`);
  });

  await t.test('a node lost (its recorder killed -9, its kubelet silent): its cameras record elsewhere (node-c takes cameras again), archive gaps ≤ 20 s, no segment lost', async (st) => {
    // node-c, added back, takes cameras again: planned moves bring it its share once it has settled (--node-settle).
    await waitUntil(async () => onNode(await camerasOf(fx), 'node-c').length > 0 && (await allRecording(fx)), 90_000, 'node-c, added back, recording cameras again').catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await nodeUrls(fx)}\nnode-c's recorder, last lines:\n${fx.pods.get('node-c')?.proc.output().slice(-4000) ?? ''}`);
    });
    const victims = onNode(await camerasOf(fx), 'node-a');
    assert.ok(victims.length > 0);
    const killedAt = Date.now();
    fx.loseNode('node-a');
    await waitAllRecording(fx, ['node-a'], 45_000, 'node-a’s cameras recording elsewhere');
    const after = await camerasOf(fx);
    assert.ok(onNode(after, 'node-c').length > 0, 'node-c still records');
    // node-a comes back with its disks (the kubelet restarts its recorder): its open file is repaired and indexed; nothing moves back.
    await fx.reviveNode('node-a');
    await sleep(6000);
    assert.deepEqual(onNode(await camerasOf(fx), 'node-a'), [], 'a node that comes back takes nothing back');
    for (const name of victims) {
      const { gapMs, listing } = await archiveGap(fx, 'node-b', name, killedAt - 20_000, Date.now() - 2000);
      st.diagnostic(`kill -9 archive gap ${name}: ${gapMs} ms`);
      assert.ok(gapMs <= 20_000, `${name}: archive gap ${gapMs} ms after kill -9:\n${listing}`);
      await waitUntil(async () => {
        const rows = await recordingRows(fx, name);
        const disk = await filesOnDisk(fx, 'node-a', name);
        return disk.every((f) => rows.byNode.get('node-a')?.includes(f)) && rows.doubled.length === 0;
      }, 20_000, `every ${name} file of node-a has its row, none twice`);
    }
  });

  await t.test('the leader operator killed during a failover: the failover still completes within 20 s', async (st) => {
    const victims = onNode(await camerasOf(fx), 'node-b');
    const killedAt = Date.now();
    fx.loseNode('node-b');
    await sleep(8000);
    const leader = ((await fx.api('node-c', '/cluster/metrics')).body as { leader: string | null }).leader;
    assert.ok(leader !== null && fx.operators.has(leader), `/cluster/metrics names a running operator as leader (${leader})`);
    st.diagnostic(`node-b killed; leader ${leader} killed ${Date.now() - killedAt} ms later`);
    fx.operators.get(leader)?.child.kill('SIGKILL');
    await waitAllRecording(fx, ['node-b'], 45_000, 'node-b’s cameras recording elsewhere');
    await fx.reviveNode('node-b');
    await fx.startOperator(leader);
    await sleep(4000);
    for (const name of victims) {
      const { gapMs, listing } = await archiveGap(fx, 'node-c', name, killedAt - 20_000, Date.now() - 2000);
      st.diagnostic(`leader killed mid-failover, archive gap ${name}: ${gapMs} ms`);
      assert.ok(gapMs <= 20_000, `${name}: archive gap ${gapMs} ms with the leader killed mid-failover:\n${listing}`);
    }
  });

  await t.test('a recorder cut off from the API keeps recording; the others take its cameras 15–20 s later; it stops its duplicates when the link returns', async (st) => {
    const node = 'node-c';
    // From a quiet start: no move in flight, and node-c's own list is what the Cameras say it records. A handover
    // still under way when the link is cut would leave node-c keeping cameras the API has already given away.
    let cutOff: string[] = [];
    await waitUntil(async () => {
      const cams = await camerasOf(fx);
      cutOff = onNode(cams, node);
      if (cutOff.length === 0 || !noMoveInFlight(cams) || !(await allRecording(fx))) return false;
      const own = ((await fx.api(node, '/api/cameras')).body as Array<{ id: string; node: string }>).filter((c) => c.node === node).map((c) => c.id).sort();
      return JSON.stringify(own) === JSON.stringify(cutOff);
    }, 60_000, `${node} recording what its Cameras say, no move in flight`);
    const cutAt = Date.now();
    fx.cutOff(node);
    await waitUntil(async () => onNode(await camerasOf(fx), node).length === 0, 40_000, 'its cameras reassigned');
    const movedAfterMs = Date.now() - cutAt;
    st.diagnostic(`cut off: cameras reassigned ${movedAfterMs} ms after the cut`);
    assert.ok(movedAfterMs >= 12_000 && movedAfterMs <= 30_000, `moved ${movedAfterMs} ms after the cut (the heartbeat was at most 2 s old)`);
    await waitAllRecording(fx, [node], 30_000, 'the new owners record');
    const local = ((await fx.api(node, '/api/cameras')).body as Array<{ id: string; node: string; state: string }>).filter((c) => c.node === node);
    assert.deepEqual(local.map((c) => c.id).sort(), cutOff, 'cut off, it still records its cameras (two nodes hold them)');
    // Readiness says what is wrong: the cluster store (the API) is out of reach.
    await waitUntil(async () => {
      const ready = await fx.api(node, '/api/health/ready');
      return ready.status === 503 && ((ready.body as { failed?: string[] }).failed ?? []).includes('cluster_store');
    }, 15_000, 'readiness 503 naming cluster_store');
    fx.reconnect(node);
    await waitUntil(async () => (await fx.api(node, '/api/health/ready')).status === 200, 15_000, 'ready again once the API answers');
    await waitUntil(async () => ((await fx.api(node, '/api/cameras')).body as Array<{ node: string }>).every((c) => c.node !== node), 15_000, 'it stops its duplicates');
    for (const name of cutOff) {
      const rows = await recordingRows(fx, name);
      assert.ok((rows.byNode.get(node) ?? []).length > 0 && [...rows.byNode.keys()].some((n) => n !== node), `${name}: both nodes’ segments are in the archive`);
    }
  });

  await t.test('two of three nodes lost: nothing moves, the survivor keeps recording, /cluster/metrics says quorum: false', async () => {
    const survivor = 'node-a';
    for (const n of ['node-b', 'node-c']) fx.loseNode(n);
    // Their heartbeats were renewed up to 2 s apart: while only the first is silent the cluster still has its
    // majority and may move that node's cameras. From the moment the second is silent, nothing may move.
    const lostAt = Date.now();
    await waitUntil(async () => ((await fx.api(survivor, '/cluster/metrics')).body as { quorum: boolean }).quorum === false, 30_000, '/cluster/metrics says quorum: false');
    // The operator's own pass that finds the quorum lost says so (a QuorumLost Event). A failover it decided a moment
    // earlier, while the first silent node alone was out, may land after the survivor's answer: its writes end
    // before that next pass, so the cameras are read once the Event is there.
    const since = Math.floor(lostAt / 1000) * 1000;
    await waitUntil(async () => (await fx.cluster.events()).some((e) => e.reason === 'QuorumLost' && (e.lastTimestamp?.getTime() ?? 0) >= since), 30_000, 'the operator’s QuorumLost Event');
    const before = await camerasOf(fx);
    const survivorCams = onNode(before, survivor);
    await sleep(20_000);
    const after = await camerasOf(fx);
    for (const [name, cam] of before) assert.equal(after.get(name)?.status?.node, cam.status?.node, `${name} did not move without quorum`);
    for (const name of survivorCams) assert.equal((await fx.api(survivor, `/api/archive/${name}/current`)).status, 200, `${survivor} still records ${name}`);
    // The spec's restore flow for failed servers: remove-node takes their votes away, so the survivor has the
    // majority again and their cameras move to it at once.
    for (const n of ['node-b', 'node-c']) assert.equal((await fx.api(survivor, '/cluster/remove-node', { method: 'POST', body: { node_name: n } })).status, 200);
    await waitAllRecording(fx, ['node-b', 'node-c'], 30_000, 'every camera recording on the survivor');
    assert.equal(((await fx.api(survivor, '/cluster/metrics')).body as { quorum: boolean }).quorum, true);
    for (const n of ['node-b', 'node-c']) await fx.reviveNode(n);
    assert.equal((await fx.api(survivor, '/cluster/change-membership', { method: 'POST', body: { members: NODES } })).status, 200);
    await waitUntil(async () => ((await fx.api(survivor, '/cluster/metrics')).body as { nodes: Array<{ online: boolean; member: boolean }> }).nodes.every((n) => n.online && n.member), 20_000, 'all three members and online again');
  });

  await t.test('a recorder restarted while the API is unreachable records its cached assignment at once', async () => {
    const node = 'node-a';
    const mine = onNode(await camerasOf(fx), node);
    assert.ok(mine.length > 0, `${node} records something`);
    // The API out of reach first, then the recorder's process ends and the kubelet starts it again (restartPolicy Always).
    fx.cutOff(node);
    await fx.restartRecorder(node);
    for (const name of mine) await waitUntil(async () => (await fx.api(node, `/api/archive/${name}/current`)).status === 200, 12_000, `${name} recording from the cache`);
    fx.reconnect(node);
    await waitAllRecording(fx, [], 40_000, 'every camera recording once the API answers');
  });

  await t.test('/cluster/leave with force while the API is unreachable: the node stops at once and erases its state', async () => {
    const node = 'node-a';
    const pod = fx.pods.get(node);
    assert.ok(pod !== undefined);
    // The steps before leave planned moves behind (cameras going back to the restarted nodes); while one is in flight
    // the old side still records the camera. Leave counts what the node records, so wait until that is its assignment.
    let mine: string[] = [];
    await waitUntil(async () => {
      const cams = await camerasOf(fx);
      if ([...cams.values()].some((c) => (c.status?.handoverFrom ?? undefined) !== undefined)) return false;
      mine = onNode(cams, node).sort();
      const local = ((await fx.api(node, '/api/cameras')).body as Array<{ id: string; node: string; url: string | null }>).filter((c) => c.url === null).map((c) => c.id).sort();
      return JSON.stringify(local) === JSON.stringify(mine);
    }, 40_000, `${node} records exactly its assignment, no move in flight`);
    fx.cutOff(node);
    assert.equal((await fx.api(node, '/cluster/leave', { method: 'POST', body: {} })).status, 503, 'without force the API is needed');
    const forced = await fx.api(node, '/cluster/leave', { method: 'POST', body: { force: true } });
    assert.equal(forced.status, 200, JSON.stringify(forced.body));
    assert.deepEqual(forced.body, { status: 'ok', node_name: node, handed_over: 0, stopped_without_handover: mine.length });
    assert.deepEqual(((await fx.api(node, '/api/cameras')).body as Array<{ node: string }>).filter((c) => c.node === node), [], 'it records nothing');
    assert.equal(existsSync(join(pod.hostPaths['/var/lib/vigil/data'] ?? '', `node_${node}`)), false, 'cluster state erased');
    fx.reconnect(node);
    // Once the API answers it records its leave (member false, vigil.io/left) rather than coming back by itself.
    await waitUntil(async () => {
      const rn = (await fx.cluster.recorderNodes()).find((r) => r.metadata.name === node);
      return rn?.spec.member === false && rn.metadata.annotations?.['vigil.io/left'] !== undefined;
    }, 20_000, 'the forced leave recorded on its RecorderNode');
    // Removed separately once the API answers, as the spec says; its cameras move at once (it is silent).
    assert.equal((await fx.api('node-b', '/cluster/remove-node', { method: 'POST', body: { node_name: node } })).status, 200);
    await waitAllRecording(fx, [node], 40_000, 'its cameras recording elsewhere');
  });

  await t.test('a recorder killed -9 on a live node: the kubelet restarts it at once (restartCount and exit 137 in the Pod status), its cameras stay and record again', async () => {
    const node = 'node-b';
    let mine: string[] = [];
    await waitUntil(async () => {
      const cams = await camerasOf(fx);
      mine = onNode(cams, node);
      // Balanced (no rebalancing move to come: that needs a member with two fewer) and no move in flight.
      const balanced = Math.abs(mine.length - onNode(cams, 'node-c').length) <= 1;
      return mine.length > 0 && balanced && noMoveInFlight(cams) && (await allRecording(fx, ['node-a']));
    }, 90_000, `${node} recording its share of the cameras, no move in flight`);
    const podName = fx.pods.get(node)?.podName ?? '';
    const recorderStatus = async () => (await fx.cluster.core.readNamespacedPod({ name: podName, namespace: fx.cluster.namespace })).status?.containerStatuses?.find((c) => c.name === 'recorder');
    const restartsBefore = (await recorderStatus())?.restartCount ?? 0;
    await fx.restartRecorder(node, 'SIGKILL');
    await waitUntil(async () => {
      const s = await recorderStatus();
      return s?.restartCount === restartsBefore + 1 && s.lastState?.terminated?.exitCode === 137 && s.state?.running !== undefined && s.ready === true;
    }, 60_000, 'the Pod status: restarted once more after exit 137, running and Ready');
    for (const name of mine) await waitUntil(async () => (await fx.api(node, `/api/archive/${name}/current`)).status === 200, 30_000, `${name} recording again on ${node}`);
    // Restarted within seconds, its heartbeat never went stale: nothing moved.
    assert.deepEqual(onNode(await camerasOf(fx), node), mine, 'its cameras stayed');
  });

  await t.test('the cameras’ password (from a Secret) is in no log line and no answer', () => {
    assert.ok(!fx.allOutput().includes(CAMERA_PASSWORD), 'no process logged it');
    for (const a of answers) assert.ok(!a.includes(CAMERA_PASSWORD));
  });
});
