// The scale scenario's baseline, taken in the same run on the same control plane before any node or operator exists:
// how fast this kube-apiserver takes Camera creates and Camera status applies from one client with nothing else
// running. Every camera the scenario assigns costs several such writes (its create, the operator's checks and
// assignment, its Event, the recorder's report, the operator's phase), so this rate bounds how fast any operator could
// assign and start thousands of cameras on this machine.
import { API_VERSION, type Camera } from '@vigil/crds';
import { forEachLimited, Resources, toApiTime, type KubeClient, type KubeObject } from '@vigil/kube';

export interface WriteCeiling {
  cameras: number;
  inFlight: number;
  createsPerS: number;
  statusAppliesPerS: number;
}

/** Creates `count` Cameras, applies a status to each (`inFlight` requests at once), deletes them again. */
export async function measureWriteCeiling(admin: KubeClient, namespace: string, count: number, inFlight: number): Promise<WriteCeiling> {
  const names = Array.from({ length: count }, (_, i) => `ceiling-${String(i + 1).padStart(5, '0')}`);
  const camera = (name: string): Camera & KubeObject => ({ apiVersion: API_VERSION, kind: 'Camera', metadata: { name, namespace }, spec: { source: `rtsp://10.0.0.20:554/${name}` } }) as Camera & KubeObject;
  let from = Date.now();
  await forEachLimited(names, inFlight, async (name) => {
    await admin.create(Resources.cameras, camera(name));
  });
  const createsPerS = count / ((Date.now() - from) / 1000);
  from = Date.now();
  // What an assignment writes: node, url, phase and a condition, server-side applied to the status subresource.
  await forEachLimited(names, inFlight, async (name) => {
    await admin.apply(Resources.cameras, {
      ...camera(name),
      status: {
        node: 'ceiling-node', url: 'http://10.0.0.30:9997', phase: 'Assigned',
        conditions: [{ type: 'Assigned', status: 'True', reason: 'NodeAssigned', message: 'recorded by ceiling-node', lastTransitionTime: toApiTime(Date.now()) }],
      },
    } as Camera & KubeObject, { fieldManager: 'bench-write-ceiling', force: true, subresource: 'status' });
  });
  const statusAppliesPerS = count / ((Date.now() - from) / 1000);
  await forEachLimited(names, inFlight, (name) => admin.delete(Resources.cameras, namespace, name));
  return { cameras: count, inFlight, createsPerS, statusAppliesPerS };
}
