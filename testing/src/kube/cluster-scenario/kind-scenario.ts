// The kind run's scenario, once the chart is installed and the Cameras applied: every camera records; segments listed
// through the API Service (a 307 followed to the recording node); a worker stopped, its cameras move and the archive
// gap stays within bounds; the worker back, nothing moves back; a `helm upgrade` rolls the recorder Pods one node at a
// time. Where it runs says how a node stops and starts (kind: docker stop/start; the process kubelet: loseNode/reviveNode)
// and how helm upgrade is run.
import { listSegments, measureArchiveGap } from './archive.js';
import { readCameras, waitForMove, waitForRecording } from './cameras.js';
import type { KubectlDriver } from './kubectl-driver.js';
import { recorderPodStates, watchRoll } from './rolling.js';

export interface KindScenarioOptions {
  driver: KubectlDriver;
  namespace: string;
  cameras: string[];
  /** The node whose loss the scenario does not test (it runs the test camera and the database). */
  controlPlaneNode: string;
  segmentSeconds: number;
  maxGapSeconds: number;
  /** The machine of `node` is gone (kind: docker stop), and back (docker start). */
  stopNode(node: string): Promise<void>;
  startNode(node: string): Promise<void>;
  /** `helm upgrade … --set recorder.logLevel=debug --wait`; resolves once it succeeded, rejects when it failed. */
  helmUpgrade(): Promise<void>;
  log(message: string): void;
}

/** What the scenario saw, for a test to report or check further. */
export interface KindScenarioResult {
  worker: string;
  victims: string[];
  gaps: Record<string, number>;
  redirected: number;
  rollOrder: string[];
  maxOut: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const now = (): number => Date.now() / 1000;

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
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

export async function runKindScenario(o: KindScenarioOptions): Promise<KindScenarioResult> {
  const { driver, namespace: ns, log } = o;
  const nodeOnline = async (node: string): Promise<boolean> => (await driver.kubectl(['get', 'rn', node, '-o', 'jsonpath={.status.online}'])) === 'true';
  const nodes = (await driver.kubectl(['get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/);
  if (nodes.length !== 3) throw new Error(`expected 3 nodes, found ${nodes.join(', ')}`);
  await waitFor('a RecorderNode online for every node', 300_000, async () => (await Promise.all(nodes.map(nodeOnline))).every(Boolean));
  await driver.connect();

  log('waiting for every camera to record');
  const recording = await waitForRecording(driver, ns, o.cameras, { timeoutMs: 300_000 });
  log(recording.map((c) => `${c.name} on ${c.node}`).join(', '));

  log('segments through the API (307 followed to the recording node)');
  await sleep(3 * o.segmentSeconds * 1000);
  let redirected = 0;
  for (const camera of o.cameras) {
    const { archive, hops } = await listSegments(driver, camera, now() - 600, now() + 60);
    if (hops.length > 1) redirected++;
    const open = archive.filter((s) => s.is_open).length;
    if (archive.length < 2 || open !== 1) throw new Error(`${camera}: expected closed segments and exactly one open one, got ${archive.length} segments (${open} open) via ${hops.join(' → ')}`);
    log(`${camera}: ${archive.length} segments via ${hops.join(' → ')}`);
  }
  if (redirected === 0) throw new Error('no listing was redirected: the API Service forward reached every camera\'s node directly, so no 307 was followed');

  const worker = nodes.find((n) => n !== o.controlPlaneNode && recording.some((c) => c.node === n));
  if (worker === undefined) throw new Error(`no worker records a camera: ${recording.map((c) => `${c.name}@${c.node}`).join(', ')}`);
  const victims = recording.filter((c) => c.node === worker).map((c) => c.name);
  log(`failover: ${worker} stops (it records ${victims.join(', ')})`);
  const stoppedAt = now();
  await o.stopNode(worker);
  for (const camera of victims) await waitForMove(driver, ns, camera, worker, { timeoutMs: 120_000 });
  log(`cameras moved ${Math.round(now() - stoppedAt)} s after the stop`);
  // `kubectl port-forward svc/…` picks a Ready Pod, and the stopped node's recorder Pod stays Ready until the node
  // lifecycle controller marks the Node Unknown (its grace period) and the Pod not Ready: the forward is made again then,
  // as a user's would be, or it could pick the Pod whose kubelet is gone.
  await waitFor(`the recorder Pod of ${worker} marked not Ready`, 180_000, async () =>
    recorderPodStates(await driver.kubectl(['-n', ns, 'get', 'pods', '-l', 'app.kubernetes.io/component=recorder', '-o', 'json'])).some((p) => p.node === worker && !p.ready));
  log(`${worker}'s recorder Pod not Ready ${Math.round(now() - stoppedAt)} s after the stop`);
  await driver.connect();
  await sleep(3 * o.segmentSeconds * 1000);
  for (const camera of victims) {
    const gap = await measureArchiveGap(driver, camera, stoppedAt - 60, now());
    log(`${camera}: largest gap ${gap.seconds.toFixed(1)} s while ${worker} is down (its unclosed last segment is not listed yet)`);
  }

  log(`${worker} starts again: it comes back, delivers its last segment, takes nothing back`);
  await o.startNode(worker);
  await waitFor(`${worker} online again`, 300_000, () => nodeOnline(worker));
  await sleep(5 * o.segmentSeconds * 1000);
  const gaps: Record<string, number> = {};
  for (const camera of victims) {
    const gap = await measureArchiveGap(driver, camera, stoppedAt - 60, now());
    gaps[camera] = gap.seconds;
    log(`${camera}: archive gap ${gap.seconds.toFixed(1)} s (${gap.segments} segments listed)`);
    if (gap.seconds > o.maxGapSeconds) throw new Error(`${camera}: archive gap ${gap.seconds.toFixed(1)} s after the failover, more than ${o.maxGapSeconds} s (from ${new Date((gap.from ?? 0) * 1000).toISOString()} to ${new Date((gap.to ?? 0) * 1000).toISOString()})`);
  }
  const after = await readCameras(driver, ns);
  for (const camera of victims) {
    if (after.find((c) => c.name === camera)?.node === worker) throw new Error(`${camera} went back to ${worker}: assignment must be stable`);
  }

  log('helm upgrade (recorder log level): the recorder Pods are replaced one node at a time');
  const before = recorderPodStates(await driver.kubectl(['-n', ns, 'get', 'pods', '-l', 'app.kubernetes.io/component=recorder', '-o', 'json']));
  const upgraded = o.helmUpgrade();
  upgraded.catch(() => undefined);
  const roll = await watchRoll(driver, ns, nodes, { timeoutMs: 600_000, before });
  await upgraded;
  log(`rolled ${roll.order.join(' → ')} in ${roll.observations} observations; at most ${roll.maxOut} node(s) without a Ready recorder at once`);
  if (roll.maxOut > 1) throw new Error(`${roll.worst.join(' and ')} were without a Ready recorder at the same time`);
  await driver.connect();
  await waitForRecording(driver, ns, o.cameras, { timeoutMs: 180_000 });
  log('every camera records after the upgrade');
  return { worker, victims, gaps, redirected, rollOrder: roll.order, maxOut: roll.maxOut };
}
