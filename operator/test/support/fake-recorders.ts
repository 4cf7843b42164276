// The recorders' side of the contract, played by the tests through client-node: heartbeat Leases renewed every 2 s,
// and Recording=True + recordingNode written on the Cameras a node is assigned (kubernetes.md §1–2).
import type { CoordinationV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { Camera } from '@vigil/crds';

export interface FakeRecorderOptions {
  /** Report Recording for the cameras assigned to this node (default true). */
  reportRecording?: boolean;
}

export class FakeRecorder {
  private heartbeat: NodeJS.Timeout | undefined;
  private reporter: NodeJS.Timeout | undefined;
  /** ms of the last successful renewal. */
  lastRenew = 0;
  reportRecording: boolean;
  /** Failures other than a 409 (a 403 would mean the chart's recorder rules are short of something). */
  readonly errors: string[] = [];
  private busy = false;

  constructor(
    readonly node: string,
    private readonly namespace: string,
    private readonly coordination: CoordinationV1Api,
    private readonly custom: CustomObjectsApi,
    opts: FakeRecorderOptions = {},
  ) {
    this.reportRecording = opts.reportRecording ?? true;
  }

  get leaseName(): string {
    return `vigil-node-${this.node}`;
  }

  /** One renewal; `now` lets two nodes share the exact same renewTime (so they go silent at the same instant). */
  async renew(now = new Date()): Promise<void> {
    try {
      const lease = await this.coordination.readNamespacedLease({ name: this.leaseName, namespace: this.namespace });
      lease.spec = { ...lease.spec, holderIdentity: this.node, leaseDurationSeconds: 15, renewTime: now };
      await this.coordination.replaceNamespacedLease({ name: this.leaseName, namespace: this.namespace, body: lease });
    } catch (err) {
      if ((err as { code?: number }).code !== 404) throw err;
      await this.coordination.createNamespacedLease({
        namespace: this.namespace,
        body: { metadata: { name: this.leaseName }, spec: { holderIdentity: this.node, leaseDurationSeconds: 15, acquireTime: now, renewTime: now } },
      });
    }
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
  }

  private noteError(err: unknown): void {
    const code = (err as { code?: number }).code;
    if (code === 409) return;
    this.errors.push(`${code ?? ''} ${(err as Error).message}`.slice(0, 300));
  }

  /** Writes Recording=True and recordingNode on every Camera assigned to this node that does not say so yet. */
  private async report(): Promise<void> {
    if (!this.reportRecording || !this.heartbeat || this.busy) return;
    this.busy = true;
    try {
      const list = (await this.custom.listNamespacedCustomObject({ group: 'vigil.io', version: 'v1alpha1', namespace: this.namespace, plural: 'cameras' })) as { items: Camera[] };
      for (const cam of list.items) {
        if (cam.status?.node !== this.node) continue;
        const rec = cam.status.conditions?.find((c) => c.type === 'Recording');
        if (rec?.status === 'True' && cam.status.recordingNode === this.node) continue;
        const conditions = (cam.status.conditions ?? []).filter((c) => c.type !== 'Recording');
        conditions.push({ type: 'Recording', status: 'True', reason: 'SegmentWritten', message: `recorded by ${this.node}`, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
        try {
          await this.custom.replaceNamespacedCustomObjectStatus({
            group: 'vigil.io', version: 'v1alpha1', namespace: this.namespace, plural: 'cameras', name: cam.metadata.name ?? '',
            body: { ...cam, status: { ...cam.status, conditions, recordingNode: this.node } },
          });
        } catch (err) {
          // 409: the operator wrote first; the next round reads again
          if ((err as { code?: number }).code !== 409) this.noteError(err);
        }
      }
    } finally {
      this.busy = false;
    }
  }
}
