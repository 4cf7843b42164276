// What this node sees of the cluster through list+watch caches that survive API outages: the Cameras it records or hands
// over (field selectors on status.node and status.handoverFrom, so a node's watches carry its own cameras and nothing
// else), the RecorderNodes, and the camera credentials the operator copied for this node (its own Secret, the one it may
// read); and the questions every part asks of them. Other nodes' cameras and every Lease (the nodes' heartbeats, the
// operator's) are read on demand (cluster-lookups.ts): at 200 nodes, watching them would fan each renewal and status
// change out to every node.
import type { Logger } from 'pino';
import { nodeCredentialsSecretName, type RecorderNode } from '@vigil/crds';
import { Informer, reportOf, Resources, type Clock as KubeClock, type KubeClient, type KubeObject, type Lease, type Secret } from '@vigil/kube';
import type { CameraCredentials } from './camera-from-resource.js';
import { RecordedCameras, type CameraObject } from './recorded-cameras.js';

export type { CameraObject };

export class ClusterView {
  /** The Cameras this node records: assigned to it, or moving away make-before-break (recorded until the new node does). */
  readonly recorded: RecordedCameras;
  readonly recorderNodes: Informer<RecorderNode & KubeObject>;
  /** This node's credentials Secret alone (the cameras it records): a list or watch of any other Secret is refused to it. */
  readonly credentials: Informer<Secret>;
  readonly namespace: string;
  readonly nodeName: string;
  readonly #credentialsSecret: string;

  constructor(client: KubeClient, namespace: string, nodeName: string, log: Logger, clock: KubeClock) {
    this.namespace = namespace;
    this.nodeName = nodeName;
    this.#credentialsSecret = nodeCredentialsSecretName(nodeName);
    const opts = { namespace, minRetryMs: 500, maxRetryMs: 5000 };
    this.recorded = new RecordedCameras(client, namespace, nodeName, log, clock);
    this.recorderNodes = new Informer('recordernodes', client, Resources.recorderNodes, log, clock, { minRetryMs: 500, maxRetryMs: 5000 });
    this.credentials = new Informer('credentials', client, Resources.secrets, log, clock, { ...opts, fieldSelector: `metadata.name=${this.#credentialsSecret}` });
  }

  #all(): Array<Informer<KubeObject>> {
    return [...this.recorded.informers, this.recorderNodes, this.credentials] as Array<Informer<KubeObject>>;
  }

  /** Calls `fn` after any change of any kind (the key does not matter: readers look at the whole view). */
  onChange(fn: () => void): void {
    for (const informer of this.#all()) informer.onChange(() => fn());
    this.recorded.onSettled(fn);
  }

  /** The Cameras assigned to this node (status.node is this node). */
  get assigned(): Informer<CameraObject> {
    return this.recorded.assigned;
  }

  start(): void {
    for (const informer of this.#all()) informer.start();
  }

  stop(): void {
    for (const informer of this.#all()) informer.stop();
    this.recorded.stop();
  }

  /** Every cache has listed at least once since start. */
  get synced(): boolean {
    return this.#all().every((i) => i.hasSynced());
  }

  /** What this node's watches have received since start (objects and event bytes), for the scale figures. */
  get watchTraffic(): { objects: number; bytes: number } {
    return this.#all().reduce((sum, i) => ({ objects: sum.objects + i.stats.objects, bytes: sum.bytes + i.stats.bytes }), { objects: 0, bytes: 0 });
  }

  /** A Camera this node records or hands over, as its caches have it. */
  camera(id: string): CameraObject | undefined {
    return this.recorded.get(id);
  }

  /** The Camera resources this node records: assigned to it, or the old side of a planned move. */
  recordedHere(): CameraObject[] {
    return this.recorded.list();
  }

  recorderNode(name: string): (RecorderNode & KubeObject) | undefined {
    return this.recorderNodes.get(name);
  }

  /**
   * Where another node is: what its heartbeat Lease reports when given and it names a URL (current from its first
   * renewal, also after a restart), else its RecorderNode's status (the operator's copy of that report).
   */
  urlsOf(node: string, heartbeat?: Lease): { url?: string; publicUrl?: string } {
    const report = reportOf(heartbeat);
    if (report.url) return { url: report.url, ...(report.publicUrl ? { publicUrl: report.publicUrl } : {}) };
    const status = this.recorderNode(node)?.status;
    const url = status?.url || undefined;
    const publicUrl = status?.publicUrl || undefined;
    return { ...(url ? { url } : {}), ...(publicUrl ? { publicUrl } : {}) };
  }

  /** A camera's user name and password as the operator copied them for this node, undefined when it has none (yet). */
  cameraCredentials(camera: string): CameraCredentials | undefined {
    const data = this.credentials.get(`${this.namespace}/${this.#credentialsSecret}`)?.data;
    const username = data?.[`${camera}.username`];
    const password = data?.[`${camera}.password`];
    if (username === undefined || password === undefined) return undefined;
    return { username: Buffer.from(username, 'base64').toString('utf8'), password: Buffer.from(password, 'base64').toString('utf8') };
  }
}
