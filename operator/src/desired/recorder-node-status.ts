// RecorderNode + its heartbeat Lease + its Pod → the status fields the operator owns (online, lastHeartbeat, Online,
// Ready and Rolled conditions, observedGeneration); url, publicUrl, version and cameras are the recorder's and kept.
import { RecorderNodeCondition, type RecorderNode, type RecorderNodeStatus } from '@vigil/crds';
import { type Lease, type Pod, isOnline } from '@vigil/kube';
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

export function desiredRecorderNodeStatus({ rn, lease, pod, desiredHash, now, silenceMs }: NodeStatusInput): RecorderNodeStatus {
  const prev = rn.status ?? {};
  const next: RecorderNodeStatus = { ...prev };
  const online = isOnline(lease, now, silenceMs);
  next.online = online;
  const renew = lease?.spec?.renewTime;
  if (renew) next.lastHeartbeat = renew;
  else delete next.lastHeartbeat;
  const generation = rn.metadata.generation ?? 0;
  let conditions = setCondition(
    prev.conditions,
    online
      ? { type: RecorderNodeCondition.Online, status: 'True', reason: 'HeartbeatRenewed', message: `heartbeat Lease renewed within the last ${silenceMs / 1000} s`, observedGeneration: generation }
      : renew
        ? { type: RecorderNodeCondition.Online, status: 'False', reason: 'HeartbeatSilent', message: `no heartbeat for more than ${silenceMs / 1000} s`, observedGeneration: generation }
        : { type: RecorderNodeCondition.Online, status: 'False', reason: 'NoHeartbeat', message: 'no heartbeat Lease', observedGeneration: generation },
    now,
  );
  const ready = isPodReady(pod);
  conditions = setCondition(
    conditions,
    ready
      ? { type: RecorderNodeCondition.Ready, status: 'True', reason: 'PodReady', message: `Pod ${pod?.metadata.name} is ready`, observedGeneration: generation }
      : { type: RecorderNodeCondition.Ready, status: 'False', reason: pod ? 'PodNotReady' : 'PodMissing', message: pod ? `Pod ${pod.metadata.name} is not ready` : 'the recorder Pod does not exist', observedGeneration: generation },
    now,
  );
  const hash = templateHashOf(pod);
  const rolled = pod !== undefined && desiredHash !== undefined && hash === desiredHash && !pod.metadata.deletionTimestamp;
  conditions = setCondition(
    conditions,
    rolled
      ? { type: RecorderNodeCondition.Rolled, status: 'True', reason: 'TemplateCurrent', message: `the Pod runs template ${hash}`, observedGeneration: generation }
      : { type: RecorderNodeCondition.Rolled, status: 'False', reason: pod ? 'TemplateOutdated' : 'PodMissing', message: pod ? `the Pod runs template ${hash ?? '(none)'}, wanted ${desiredHash ?? '(unknown)'}` : 'the recorder Pod does not exist', observedGeneration: generation },
    now,
  );
  next.conditions = conditions;
  next.observedGeneration = generation;
  return next;
}
