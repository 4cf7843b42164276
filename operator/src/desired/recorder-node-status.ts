// RecorderNode + its heartbeat Lease + its Pod → the status fields the operator's status controller owns (it applies
// them as `vigil-operator`): online (changing only on transitions), lastHeartbeat (the renewal seen at the last
// transition), the Online, Ready, Rolled and CertificateValid conditions, observedGeneration, and what the recorder
// reports on its Lease (url, publicUrl, version, cameras, its certificate's validity). Nobody else writes these fields.
import { NodeReportAnnotations, RecorderNodeCondition, type Condition, type RecorderNode, type RecorderNodeStatus } from '@vigil/crds';
import { type Lease, type NodeReport, type Pod, isOnline, reportOf } from '@vigil/kube';
import { sameStatus } from './camera-status.js';
import { setCondition } from './conditions.js';
import { isPodReady, templateHashOf } from './pod.js';

export interface NodeStatusInput {
  rn: RecorderNode;
  lease: Lease | undefined;
  pod: Pod | undefined;
  /** The template hash the node's Pod should carry. */
  desiredHash: string | undefined;
  now: number;
  silenceMs: number;
}

/** The fields of a RecorderNode status the status controller owns. */
export type OwnedNodeStatus = Pick<RecorderNodeStatus, 'online' | 'lastHeartbeat' | 'url' | 'publicUrl' | 'version' | 'cameras' | 'conditions' | 'observedGeneration'>;

const OWNED_CONDITIONS: readonly string[] = [RecorderNodeCondition.Online, RecorderNodeCondition.Ready, RecorderNodeCondition.Rolled, RecorderNodeCondition.CertificateValid];

/**
 * The camera count alone is written at most this often per node. It follows every camera a node is given, and every
 * RecorderNode write is a wide one for the API server's priority and fairness (each recorder watches the
 * RecorderNodes): a 5,000-camera rollout wrote it 1,340 times.
 */
export const CAMERA_COUNT_INTERVAL_MS = 10_000;

/**
 * How long writing `next` over `prev` may wait: when nothing but the camera count differs and this node's status was
 * written less than CAMERA_COUNT_INTERVAL_MS ago, the rest of that interval; otherwise 0 (now). Anything else (online,
 * a condition, the URL) is written at once and takes the count along.
 */
export function cameraCountWait(prev: OwnedNodeStatus, next: OwnedNodeStatus, lastWrittenAt: number | undefined, now: number): number {
  if (prev.cameras === next.cameras || lastWrittenAt === undefined) return 0;
  if (!sameStatus({ ...prev, cameras: next.cameras }, next)) return 0;
  return Math.max(0, lastWrittenAt + CAMERA_COUNT_INTERVAL_MS - now);
}

/** The part of a status the status controller owns, as it stands (to compare with the desired one). */
export function ownedNodeStatus(status: RecorderNodeStatus | undefined): OwnedNodeStatus {
  const s = status ?? {};
  const owned: OwnedNodeStatus = {};
  for (const key of ['online', 'lastHeartbeat', 'url', 'publicUrl', 'version', 'cameras', 'observedGeneration'] as const) {
    if (s[key] !== undefined) (owned as Record<string, unknown>)[key] = s[key];
  }
  const conditions = (s.conditions ?? []).filter((c) => OWNED_CONDITIONS.includes(c.type));
  if (conditions.length > 0) owned.conditions = conditions;
  return owned;
}

function condition(type: string, ok: boolean, reason: string, message: string, generation: number): Omit<Condition, 'lastTransitionTime'> {
  return { type, status: ok ? 'True' : 'False', reason, message, observedGeneration: generation };
}

/**
 * CertificateValid from the certificate the recorder reports serving: True until the time from which the recorder
 * counts it as expiring (its readiness rule: 7 days before the end, the last sixth of a short-lived one), then False
 * CertificateExpiring, and CertificateExpired past its end. Undefined (no condition) when the recorder reports none:
 * no TLS, or it still waits for its own.
 */
export function certificateCondition(report: NodeReport, now: number, generation: number): Omit<Condition, 'lastTransitionTime'> | undefined {
  const end = Date.parse(report.certificateNotAfter ?? '');
  if (!Number.isFinite(end)) return undefined;
  const expiringFrom = Date.parse(report.certificateExpiringFrom ?? '');
  const endText = new Date(end).toISOString();
  if (end <= now) return condition(RecorderNodeCondition.CertificateValid, false, 'CertificateExpired', `the certificate its API serves ended at ${endText}; clients refuse it until a renewed one is in place`, generation);
  if ((Number.isFinite(expiringFrom) ? expiringFrom : end) <= now) {
    return condition(RecorderNodeCondition.CertificateValid, false, 'CertificateExpiring', `the certificate its API serves ends at ${endText} and has not been renewed; it serves until then`, generation);
  }
  return condition(RecorderNodeCondition.CertificateValid, true, 'CertificateValid', `the certificate its API serves ends at ${endText}`, generation);
}

export function desiredRecorderNodeStatus({ rn, lease, pod, desiredHash, now, silenceMs }: NodeStatusInput): OwnedNodeStatus {
  const prev = ownedNodeStatus(rn.status);
  const next: OwnedNodeStatus = {};
  const online = isOnline(lease, now, silenceMs);
  next.online = online;
  const renew = lease?.spec?.renewTime ?? undefined;
  // The Lease is the heartbeat: its renewTime is copied only when online changes (no API write per renewal).
  if (prev.online !== online) {
    if (renew) next.lastHeartbeat = renew;
  } else if (prev.lastHeartbeat) next.lastHeartbeat = prev.lastHeartbeat;

  const report = reportOf(lease);
  if (report.url) {
    // A recorder that reports a URL reports its whole self: a public URL it no longer has goes away.
    next.url = report.url;
    if (report.publicUrl) next.publicUrl = report.publicUrl;
    if (report.version) next.version = report.version;
    if (report.cameras !== undefined) next.cameras = report.cameras;
  } else {
    // No report (its recorder has not started, or it left and the Lease was made again): where it was and what ran
    // there stay known (add-learner may have given a URL); it records nothing the cluster knows of.
    const hint = rn.metadata.annotations?.[NodeReportAnnotations.url];
    const url = prev.url ?? hint;
    if (url) next.url = url;
    if (prev.publicUrl) next.publicUrl = prev.publicUrl;
    if (prev.version) next.version = prev.version;
    next.cameras = 0;
  }

  const generation = rn.metadata.generation ?? 0;
  const seconds = silenceMs / 1000;
  let conditions = setCondition(
    prev.conditions,
    online
      ? condition(RecorderNodeCondition.Online, true, 'HeartbeatRenewed', `heartbeat Lease renewed within the last ${seconds} s`, generation)
      : renew
        ? condition(RecorderNodeCondition.Online, false, 'HeartbeatSilent', `no heartbeat for more than ${seconds} s`, generation)
        : condition(RecorderNodeCondition.Online, false, 'NoHeartbeat', 'no heartbeat Lease renewal', generation),
    now,
  );
  const ready = isPodReady(pod);
  conditions = setCondition(
    conditions,
    ready
      ? condition(RecorderNodeCondition.Ready, true, 'PodReady', `Pod ${pod?.metadata.name} is ready`, generation)
      : condition(RecorderNodeCondition.Ready, false, pod ? 'PodNotReady' : 'PodMissing', pod ? `Pod ${pod.metadata.name} is not ready` : 'the recorder Pod does not exist', generation),
    now,
  );
  const hash = templateHashOf(pod);
  const rolled = pod !== undefined && desiredHash !== undefined && hash === desiredHash && !pod.metadata.deletionTimestamp;
  conditions = setCondition(
    conditions,
    rolled
      ? condition(RecorderNodeCondition.Rolled, true, 'TemplateCurrent', `the Pod runs template ${hash}`, generation)
      : condition(RecorderNodeCondition.Rolled, false, pod ? 'TemplateOutdated' : 'PodMissing', pod ? `the Pod runs template ${hash ?? '(none)'}, wanted ${desiredHash ?? '(unknown)'}` : 'the recorder Pod does not exist', generation),
    now,
  );
  const certificate = certificateCondition(report, now, generation);
  if (certificate !== undefined) conditions = setCondition(conditions, certificate, now);
  else conditions = conditions.filter((c) => c.type !== RecorderNodeCondition.CertificateValid);
  next.conditions = conditions;
  next.observedGeneration = generation;
  return next;
}
