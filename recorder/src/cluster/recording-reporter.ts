// Reports on each Camera this node records whether it records: condition Recording and status.recordingNode (the
// operator's make-before-break waits for them), applied server-side as `vigil-recorder-<node>`: the operator's fields
// of the same status are never read back and written again here, so neither writer can drop the other's.
import type { Logger } from 'pino';
import { API_VERSION, CAMERA_KIND, CameraCondition, CameraReason, ConditionStatus, recorderFieldManager, type Camera as CameraResource, type Condition } from '@vigil/crds';
import { isNotFound, Resources, toApiTime, type KubeClient, type KubeObject } from '@vigil/kube';
import type { Clock, TimerHandle } from '../util/clock.js';
import type { ClusterView } from './cluster-view.js';
import { ReportPacing } from './report-pacing.js';

/** What the reporter asks the fleet: is a segment of the camera being written on this node right now? */
export interface RecordingProbe {
  writing(cameraId: string): boolean;
}

export interface RecordingReporterOptions {
  client: KubeClient;
  view: ClusterView;
  nodeName: string;
  probe: RecordingProbe;
  clock: Clock;
  log: Logger;
  /** Not writing for this long → Recording=False (StreamUnavailable); the operator marks the camera Failed after a while. */
  unavailableAfterMs?: number;
  tickMs?: number;
}

type CameraObject = CameraResource & KubeObject;

/**
 * How long one report may take. kube-apiserver's priority and fairness keeps a request queued for at most a quarter of
 * its 60 s request timeout and then answers 429/504; a client that gives up sooner only sends the same report again.
 */
const REPORT_TIMEOUT_MS = 20_000;

/** The Recording condition this node wants on the camera, or undefined to leave it as it is. */
export function wantedRecording(camera: CameraObject, node: string, writing: boolean, silentForMs: number, unavailableAfterMs: number): Condition['status'] | undefined {
  const current = camera.status?.conditions?.find((c) => c.type === CameraCondition.Recording);
  const mine = camera.status?.recordingNode === node;
  if (writing) return current?.status === ConditionStatus.True && mine ? undefined : ConditionStatus.True;
  if (silentForMs < unavailableAfterMs) return undefined;
  if (current?.status === ConditionStatus.False && mine) return undefined;
  return ConditionStatus.False;
}

/** The status fields this node applies: the Recording condition (keeping its transition time) and recordingNode. */
export function recordingReport(camera: CameraObject, node: string, status: Condition['status'], nowMs: number): { conditions: Condition[]; recordingNode: string } {
  const previous = camera.status?.conditions?.find((c) => c.type === CameraCondition.Recording);
  const recording = status === ConditionStatus.True;
  const next: Condition = {
    type: CameraCondition.Recording,
    status,
    reason: recording ? 'SegmentWritten' : CameraReason.StreamUnavailable,
    message: recording ? `recording on ${node}` : `${node} receives no stream from the camera`,
    lastTransitionTime: previous?.status === status && previous.lastTransitionTime !== undefined ? previous.lastTransitionTime : toApiTime(nowMs),
    ...(camera.metadata.generation === undefined ? {} : { observedGeneration: camera.metadata.generation }),
  };
  return { conditions: [next], recordingNode: node };
}

export class RecordingReporter {
  readonly #opts: RecordingReporterOptions;
  readonly #silentSince = new Map<string, number>();
  readonly #pacing = new ReportPacing();
  #timer: TimerHandle | undefined;

  constructor(opts: RecordingReporterOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#timer ??= this.#opts.clock.setInterval(() => this.tick(), this.#opts.tickMs ?? 1000);
  }

  stop(): void {
    this.#opts.clock.clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Looks at every camera assigned to this node; writes only what changed, a few at a time (report-pacing.ts). */
  tick(): void {
    const { view, nodeName, probe, clock } = this.#opts;
    if (!view.synced) return;
    const now = clock.now();
    const assigned = new Set<string>();
    for (const camera of view.assigned.list()) {
      const id = camera.metadata.name ?? '';
      if (camera.status?.node !== nodeName) continue; // the old side of a handover reports nothing
      assigned.add(id);
      const writing = probe.writing(id);
      if (writing) this.#silentSince.delete(id);
      else if (!this.#silentSince.has(id)) this.#silentSince.set(id, now);
      const wanted = wantedRecording(camera, nodeName, writing, now - (this.#silentSince.get(id) ?? now), this.#opts.unavailableAfterMs ?? 30_000);
      if (wanted !== undefined && this.#pacing.mayStart(id, now)) void this.#write(id, wanted);
    }
    for (const id of this.#silentSince.keys()) if (!assigned.has(id)) this.#silentSince.delete(id);
    for (const id of this.#pacing.waiting) if (!assigned.has(id)) this.#pacing.forget(id);
  }

  /**
   * Server-side apply of this node's fields (no resourceVersion: nothing to conflict with); a failure is retried at a
   * later tick, after a jittered wait that grows with each failure.
   */
  async #write(id: string, status: Condition['status']): Promise<void> {
    const { client, view, nodeName, clock, log } = this.#opts;
    const camera = view.camera(id);
    if (camera === undefined) return;
    this.#pacing.started(id);
    try {
      const body = { apiVersion: API_VERSION, kind: CAMERA_KIND, metadata: { name: id, namespace: view.namespace }, status: recordingReport(camera, nodeName, status, clock.now()) };
      const written = await client.apply<CameraObject>(Resources.cameras, body as CameraObject, { fieldManager: recorderFieldManager(nodeName), force: true, subresource: 'status', timeoutMs: REPORT_TIMEOUT_MS });
      this.#pacing.succeeded(id);
      view.assigned.upsert(written);
      log.info({ camera: id, recording: status }, status === ConditionStatus.True ? 'reported the camera recording on this node' : 'reported the camera unavailable on this node');
    } catch (err) {
      const retryInMs = this.#pacing.failed(id, clock.now());
      if (!isNotFound(err)) log.warn({ camera: id, err: (err as Error).message, retryInMs }, 'cannot report the camera\'s Recording condition; retrying');
    }
  }
}
