// What this node sees of the cluster: Cameras, RecorderNodes, Leases and the camera credentials the operator copied for
// this node (its own Secret, the one it may read), through list+watch caches that survive API outages; and the questions
// every part asks of them (which cameras a node records, where a node is, the silence rule the operator judges nodes by).
import type { Logger } from 'pino';
import {
  DEFAULT_NODE_SILENCE_SECONDS, nodeCredentialsSecretName, NODE_SILENCE_ANNOTATION, OPERATOR_LEASE_NAME, nodeLeaseName, recordsCamera, type Camera as CameraResource, type RecorderNode,
} from '@vigil/crds';
import { Informer, reportOf, Resources, silenceMsOf, type Clock as KubeClock, type KubeClient, type KubeObject, type Lease, type Secret } from '@vigil/kube';
import type { CameraCredentials } from './camera-from-resource.js';

export class ClusterView {
  readonly cameras: Informer<CameraResource & KubeObject>;
  readonly recorderNodes: Informer<RecorderNode & KubeObject>;
  /** This node's credentials Secret alone (the cameras it records): a list or watch of any other Secret is refused to it. */
  readonly credentials: Informer<Secret>;
  readonly leases: Informer<Lease>;
  readonly namespace: string;
  readonly #credentialsSecret: string;

  constructor(client: KubeClient, namespace: string, nodeName: string, log: Logger, clock: KubeClock) {
    this.namespace = namespace;
    this.#credentialsSecret = nodeCredentialsSecretName(nodeName);
    const opts = { namespace, minRetryMs: 500, maxRetryMs: 5000 };
    this.cameras = new Informer('cameras', client, Resources.cameras, log, clock, opts);
    this.recorderNodes = new Informer('recordernodes', client, Resources.recorderNodes, log, clock, { minRetryMs: 500, maxRetryMs: 5000 });
    this.credentials = new Informer('credentials', client, Resources.secrets, log, clock, { ...opts, fieldSelector: `metadata.name=${this.#credentialsSecret}` });
    this.leases = new Informer('leases', client, Resources.leases, log, clock, opts);
  }

  #all(): Array<Informer<KubeObject>> {
    return [this.cameras, this.recorderNodes, this.credentials, this.leases] as Array<Informer<KubeObject>>;
  }

  /** Calls `fn` after any change of any kind (the key does not matter: readers look at the whole view). */
  onChange(fn: () => void): void {
    for (const informer of this.#all()) informer.onChange(() => fn());
  }

  start(): void {
    for (const informer of this.#all()) informer.start();
  }

  stop(): void {
    for (const informer of this.#all()) informer.stop();
  }

  /** Every cache has listed at least once since start. */
  get synced(): boolean {
    return this.#all().every((i) => i.hasSynced());
  }

  camera(id: string): (CameraResource & KubeObject) | undefined {
    return this.cameras.get(`${this.namespace}/${id}`);
  }

  recorderNode(name: string): (RecorderNode & KubeObject) | undefined {
    return this.recorderNodes.get(name);
  }

  lease(name: string): Lease | undefined {
    return this.leases.get(`${this.namespace}/${name}`);
  }

  /** The Camera resources `node` records: assigned to it, or the old side of a planned move. */
  assignedTo(node: string): Array<CameraResource & KubeObject> {
    return this.cameras.list().filter((c) => recordsCamera(c, node));
  }

  /** Where a node is: what its heartbeat Lease reports, else its RecorderNode status (the operator's copy). */
  urlsOf(node: string): { url?: string; publicUrl?: string } {
    const report = reportOf(this.lease(nodeLeaseName(node)));
    const status = this.recorderNode(node)?.status;
    const url = report.url || status?.url || undefined;
    const publicUrl = report.url ? report.publicUrl : status?.publicUrl || undefined;
    return { ...(url ? { url } : {}), ...(publicUrl ? { publicUrl } : {}) };
  }

  /** The silence rule the operator publishes on its Lease (--node-silence), else the default 15 s. */
  nodeSilenceMs(): number {
    return silenceMsOf(this.lease(OPERATOR_LEASE_NAME)?.metadata.annotations?.[NODE_SILENCE_ANNOTATION], DEFAULT_NODE_SILENCE_SECONDS);
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
