// events.k8s.io/v1 Events as a view of the stored core/v1 Events (one storage, as on a real server), field by field.
import type { KubeObject } from './types.js';

/** events.k8s.io/v1 field ← core/v1 field. */
const FIELDS: Array<[string, string]> = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['reportingController', 'reportingComponent'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
];
const SAME = ['reason', 'type', 'action', 'related', 'reportingInstance', 'eventTime', 'series'];

export function coreEventFromEventsV1(o: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata: o.metadata };
  for (const [v1, core] of FIELDS) if (o[v1] !== undefined) out[core] = o[v1];
  for (const f of SAME) if (o[f] !== undefined) out[f] = o[f];
  return out;
}

export function eventsV1FromCoreEvent(o: KubeObject): KubeObject {
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: o.metadata };
  for (const [v1, core] of FIELDS) if (o[core] !== undefined) out[v1] = o[core];
  for (const f of SAME) if (o[f] !== undefined) out[f] = o[f];
  return out;
}
