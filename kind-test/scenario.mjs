// The kind run's checks, after run.sh installed the chart and applied the Cameras: recording, segments through a
// port-forward with the 307 followed, a worker stopped (docker stop) and the archive gap, a one-node-at-a-time upgrade.
// The logic lives in @vigil/testing/kube/cluster-scenario (shared with the loopback end-to-end tests); this file orders it.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import {
  kubectlDriver, listSegments, measureArchiveGap, readCameras, recorderPodStates, waitForMove, waitForRecording, watchRoll,
} from '@vigil/testing/kube/cluster-scenario';

const run = promisify(execFile);
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run kind-test/run.sh)`);
  return value;
};
const ns = env('VIGIL_KIND_NAMESPACE');
const cluster = env('VIGIL_KIND_CLUSTER');
const CAMERAS = ['cam-1', 'cam-2', 'cam-3'];
const SEGMENT_SECONDS = 4;
const MAX_GAP_SECONDS = 20;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message) => process.stdout.write(`kind-test: ${message}\n`);
const now = () => Date.now() / 1000;

// run.sh sets NODE_EXTRA_CA_CERTS to the release CA (ConfigMap vigil-ca) when the recorders serve HTTPS.
const driver = kubectlDriver({ kubectl: env('VIGIL_KUBECTL'), namespace: ns, apiService: 'vigil-api', apiPort: 9997, token: env('VIGIL_KIND_TOKEN'), https: process.env.NODE_EXTRA_CA_CERTS !== undefined });

async function waitFor(what, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(1000);
  }
}

async function nodeOnline(node) {
  return (await driver.kubectl(['get', 'rn', node, '-o', 'jsonpath={.status.online}'])) === 'true';
}

async function main() {
  const nodes = (await driver.kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/);
  if (nodes.length !== 3) throw new Error(`expected 3 nodes, found ${nodes.join(', ')}`);
  await waitFor('a RecorderNode online for every node', 300_000, async () => (await Promise.all(nodes.map(nodeOnline))).every(Boolean));
  await driver.connect();

  log('waiting for every camera to record');
  const recording = await waitForRecording(driver, ns, CAMERAS, { timeoutMs: 300_000 });
  log(recording.map((c) => `${c.name} on ${c.node}`).join(', '));

  log('segments through the API (307 followed to the recording node)');
  await sleep(3 * SEGMENT_SECONDS * 1000);
  let redirected = 0;
  for (const camera of CAMERAS) {
    const { archive, hops } = await listSegments(driver, camera, now() - 600, now() + 60);
    if (hops.length > 1) redirected++;
    const open = archive.filter((s) => s.is_open).length;
    if (archive.length < 2 || open !== 1) throw new Error(`${camera}: expected closed segments and exactly one open one, got ${archive.length} segments (${open} open) via ${hops.join(' → ')}`);
    log(`${camera}: ${archive.length} segments via ${hops.join(' → ')}`);
  }
  if (redirected === 0) throw new Error('no listing was redirected: the API Service forward reached every camera\'s node directly, so no 307 was followed');

  const worker = nodes.find((n) => n !== `${cluster}-control-plane` && recording.some((c) => c.node === n));
  if (!worker) throw new Error(`no worker records a camera: ${recording.map((c) => `${c.name}@${c.node}`).join(', ')}`);
  const victims = recording.filter((c) => c.node === worker).map((c) => c.name);
  log(`failover: docker stop ${worker} (records ${victims.join(', ')})`);
  const stoppedAt = now();
  await run('docker', ['stop', worker]);
  for (const camera of victims) await waitForMove(driver, ns, camera, worker, { timeoutMs: 120_000 });
  log(`cameras moved ${Math.round(now() - stoppedAt)} s after docker stop`);
  await driver.connect();
  await sleep(3 * SEGMENT_SECONDS * 1000);
  for (const camera of victims) {
    const gap = await measureArchiveGap(driver, camera, stoppedAt - 60, now());
    log(`${camera}: largest gap ${gap.seconds.toFixed(1)} s while ${worker} is down (its unclosed last segment is not listed yet)`);
  }

  log(`docker start ${worker}: it comes back, delivers its last segment, takes nothing back`);
  await run('docker', ['start', worker]);
  await waitFor(`${worker} online again`, 300_000, () => nodeOnline(worker));
  await sleep(5 * SEGMENT_SECONDS * 1000);
  for (const camera of victims) {
    const gap = await measureArchiveGap(driver, camera, stoppedAt - 60, now());
    log(`${camera}: archive gap ${gap.seconds.toFixed(1)} s (${gap.segments} segments listed)`);
    if (gap.seconds > MAX_GAP_SECONDS) throw new Error(`${camera}: archive gap ${gap.seconds.toFixed(1)} s after the failover, more than ${MAX_GAP_SECONDS} s (from ${new Date((gap.from ?? 0) * 1000).toISOString()} to ${new Date((gap.to ?? 0) * 1000).toISOString()})`);
  }
  const after = await readCameras(driver, ns);
  for (const camera of victims) {
    if (after.find((c) => c.name === camera)?.node === worker) throw new Error(`${camera} went back to ${worker}: assignment must be stable`);
  }

  log('helm upgrade (recorder log level): the recorder Pods are replaced one node at a time');
  const before = recorderPodStates(await driver.kubectl(['-n', ns, 'get', 'pods', '-l', 'app.kubernetes.io/component=recorder', '-o', 'json']));
  const upgrade = spawn(env('VIGIL_HELM'), ['upgrade', 'vigil', 'helm/vigil', '-n', ns, '--reuse-values', '--set', 'recorder.logLevel=debug', '--wait', '--timeout', '5m'], { stdio: 'inherit' });
  const upgraded = new Promise((resolve) => upgrade.once('exit', resolve));
  const roll = await watchRoll(driver, ns, nodes, { timeoutMs: 600_000, before });
  if ((await upgraded) !== 0) throw new Error('helm upgrade failed');
  log(`rolled ${roll.order.join(' → ')} in ${roll.observations} observations; at most ${roll.maxOut} node(s) without a Ready recorder at once`);
  if (roll.maxOut > 1) throw new Error(`${roll.worst.join(' and ')} were without a Ready recorder at the same time`);
  await driver.connect();
  await waitForRecording(driver, ns, CAMERAS, { timeoutMs: 180_000 });
  log('every camera records after the upgrade');
}

main().then(
  () => driver.close(),
  (err) => {
    driver.close();
    process.stderr.write(`kind-test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
