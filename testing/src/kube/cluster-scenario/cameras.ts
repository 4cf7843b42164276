// Camera resources as a scenario reads them (kubectl get cameras -o json): where each records, and waiting for a phase or a move.
import type { ClusterDriver } from './driver.js';

export interface CameraState {
  name: string;
  node: string;
  phase: string;
  recordingNode: string;
}

export async function readCameras(driver: ClusterDriver, namespace: string): Promise<CameraState[]> {
  const list = JSON.parse(await driver.kubectl(['-n', namespace, 'get', 'cameras', '-o', 'json'])) as { items: Array<{ metadata: { name: string }; status?: { node?: string; phase?: string; recordingNode?: string } }> };
  return list.items.map((c) => ({ name: c.metadata.name, node: c.status?.node ?? '', phase: c.status?.phase ?? 'Pending', recordingNode: c.status?.recordingNode ?? '' }));
}

export interface WaitOptions {
  timeoutMs: number;
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `done(cameras)` holds; the error names what was awaited and the last state seen. */
export async function waitForCameras(driver: ClusterDriver, namespace: string, what: string, done: (cameras: CameraState[]) => boolean, opts: WaitOptions): Promise<CameraState[]> {
  const sleep = opts.sleep ?? realSleep;
  const deadline = Date.now() + opts.timeoutMs;
  let last: CameraState[] = [];
  let lastError = '';
  for (;;) {
    try {
      last = await readCameras(driver, namespace);
      if (done(last)) return last;
    } catch (err) {
      lastError = (err as Error).message;
    }
    if (Date.now() >= deadline) {
      const seen = last.map((c) => `${c.name}: ${c.phase} on ${c.node || '(none)'}`).join(', ') || '(no cameras)';
      throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${what}; last seen: ${seen}${lastError ? `; last error: ${lastError}` : ''}`);
    }
    await sleep(opts.pollMs ?? 1000);
  }
}

/** Every named camera in phase Recording, recorded by its assigned node. */
export function waitForRecording(driver: ClusterDriver, namespace: string, names: string[], opts: WaitOptions): Promise<CameraState[]> {
  return waitForCameras(driver, namespace, `cameras ${names.join(', ')} to be Recording`, (cameras) =>
    names.every((n) => cameras.some((c) => c.name === n && c.phase === 'Recording' && c.node !== '' && c.recordingNode === c.node)), opts);
}

/** The camera assigned to a node other than `from`, and recording there. */
export function waitForMove(driver: ClusterDriver, namespace: string, name: string, from: string, opts: WaitOptions): Promise<CameraState[]> {
  return waitForCameras(driver, namespace, `camera ${name} to record on a node other than ${from}`, (cameras) =>
    cameras.some((c) => c.name === name && c.node !== '' && c.node !== from && c.phase === 'Recording' && c.recordingNode === c.node), opts);
}
