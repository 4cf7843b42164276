// The recorders' side of the contract, played by the tests as each node's own ServiceAccount (the one the operator
// makes): the heartbeat Lease renewed every 2 s, and Recording=True + recordingNode applied (server-side apply, as
// `vigil-recorder-<node>`) on the Cameras a node is assigned (kubernetes.md §1–2).
import { API_VERSION, CAMERA_KIND, nodeLeaseName, recorderFieldManager, type Camera } from '@vigil/crds';
import { KubeClient, loadKubeConfig, Resources, toApiTime, toMicroTime, type KubeObject, type Lease } from '@vigil/kube';
import type { TestCluster } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';

export interface FakeRecorderOptions {
  /** Report Recording for the cameras assigned to this node (default true). */
  reportRecording?: boolean;
}

export class FakeRecorder {
  private heartbeat: NodeJS.Timeout | undefined;
  private reporter: NodeJS.Timeout | undefined;
  private client: KubeClient | undefined;
  /** The bearer token of its ServiceAccount (to cut it off the API). */
  token = '';
  /** ms of the last successful renewal. */
  lastRenew = 0;
  reportRecording: boolean;
  /** Failures other than a 409 (a 403 would mean the recorder rules are short of something). */
  readonly errors: string[] = [];
  private busy = false;

  constructor(
    readonly node: string,
    private readonly cluster: TestCluster,
    opts: FakeRecorderOptions = {},
  ) {
    this.reportRecording = opts.reportRecording ?? true;
  }

  get leaseName(): string {
    return nodeLeaseName(this.node);
  }

  /** Its ServiceAccount's client, once the operator has made the node's identity and heartbeat Lease. */
  async connect(timeoutMs = 90_000): Promise<KubeClient> {
    if (this.client) return this.client;
    const { path, token } = await this.cluster.nodeKubeconfig(this.node, { timeoutMs });
    this.token = token;
    const client = new KubeClient(loadKubeConfig({ KUBECONFIG: path }), { userAgent: `fake-recorder/${this.node}` });
    await waitUntil(async () => (await client.get<Lease>(Resources.leases, this.cluster.namespace, this.leaseName)) !== undefined, timeoutMs, `the heartbeat Lease of ${this.node}`, 100);
    this.client = client;
    return client;
  }

  /** One renewal; `now` lets two nodes share the exact same renewTime (so they go silent at the same instant). */
  async renew(now = new Date()): Promise<void> {
    const client = await this.connect();
    const lease = await client.get<Lease>(Resources.leases, this.cluster.namespace, this.leaseName);
    if (!lease) throw new Error(`no Lease ${this.leaseName}`);
    await client.replace<Lease>(Resources.leases, { ...lease, spec: { ...lease.spec, holderIdentity: this.node, leaseDurationSeconds: 15, renewTime: toMicroTime(now.getTime()) } });
    this.lastRenew = now.getTime();
  }

  /** Renews now and every 2 s, and reports Recording every 300 ms. */
  async start(): Promise<void> {
    await this.renew();
    this.startHeartbeat();
    this.reporter = setInterval(() => void this.report().catch((err: unknown) => this.noteError(err)), 300);
  }

  startHeartbeat(): void {
    this.heartbeat ??= setInterval(() => void this.renew().catch((err: unknown) => this.noteError(err)), 2000);
  }

  /** The node goes silent (its last renewal stays in the Lease). */
  stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  stop(): void {
    this.stopHeartbeat();
    clearInterval(this.reporter);
    this.reporter = undefined;
    this.client?.close();
  }

  private noteError(err: unknown): void {
    const status = (err as { status?: number }).status;
    if (status === 409) return;
    this.errors.push(`${status ?? ''} ${(err as Error).message}`.slice(0, 300));
  }

  /** Applies Recording=True and recordingNode on every Camera assigned to this node that does not say so yet. */
  private async report(): Promise<void> {
    if (!this.reportRecording || !this.heartbeat || this.busy || !this.client) return;
    this.busy = true;
    try {
      const list = await this.client.list<Camera & KubeObject>(Resources.cameras, { namespace: this.cluster.namespace });
      for (const cam of list.items) {
        if (cam.status?.node !== this.node) continue;
        const rec = cam.status.conditions?.find((c) => c.type === 'Recording');
        if (rec?.status === 'True' && cam.status.recordingNode === this.node) continue;
        const status = { conditions: [{ type: 'Recording', status: 'True', reason: 'SegmentWritten', message: `recorded by ${this.node}`, lastTransitionTime: toApiTime(Date.now()) }], recordingNode: this.node };
        const body = { apiVersion: API_VERSION, kind: CAMERA_KIND, metadata: { name: cam.metadata.name, namespace: this.cluster.namespace }, status };
        await this.client.apply(Resources.cameras, body as unknown as KubeObject, { fieldManager: recorderFieldManager(this.node), force: true, subresource: 'status' });
      }
    } finally {
      this.busy = false;
    }
  }
}
