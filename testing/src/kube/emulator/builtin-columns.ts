// Server-side printer columns of the built-in kinds (what `kubectl get` shows for them), after k8s.io/kubernetes pkg/printers.
import { ageOf, humanDuration } from './human-duration.js';
import { isRecord, type KubeObject } from './types.js';

export interface ColumnSpec {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  cell(o: KubeObject, now: number): unknown;
}

const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const spec = (o: KubeObject): Record<string, unknown> => rec(o.spec);
const status = (o: KubeObject): Record<string, unknown> => rec(o.status);

export const NAME_COLUMN: ColumnSpec = { name: 'Name', type: 'string', format: 'name', cell: (o) => o.metadata.name };
export const AGE_COLUMN: ColumnSpec = { name: 'Age', type: 'string', cell: (o, now) => ageOf(o.metadata.creationTimestamp, now) };
const CREATED_AT: ColumnSpec = { name: 'Created At', type: 'date', cell: (o) => o.metadata.creationTimestamp };

function condition(o: KubeObject, type: string): Record<string, unknown> | undefined {
  return arr(status(o).conditions).map(rec).find((c) => c.type === type);
}

function containers(o: KubeObject): Record<string, unknown>[] {
  return arr(rec(rec(spec(o).template).spec).containers).map(rec);
}

const wideContainers: ColumnSpec[] = [
  { name: 'Containers', type: 'string', priority: 1, cell: (o) => containers(o).map((c) => c.name).join(',') },
  { name: 'Images', type: 'string', priority: 1, cell: (o) => containers(o).map((c) => c.image).join(',') },
];

function podStatus(o: KubeObject): string {
  if (o.metadata.deletionTimestamp !== undefined) return 'Terminating';
  const s = status(o);
  for (const cs of arr(s.containerStatuses).map(rec)) {
    const waiting = rec(rec(cs.state).waiting);
    if (typeof waiting.reason === 'string') return waiting.reason;
  }
  return typeof s.phase === 'string' ? s.phase : 'Pending';
}

function servicePorts(o: KubeObject): string {
  const ports = arr(spec(o).ports).map(rec);
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${String(p.port)}${p.nodePort !== undefined ? `:${String(p.nodePort)}` : ''}/${String(p.protocol ?? 'TCP')}`).join(',');
}

function selectorText(v: unknown): string {
  const labels = rec(rec(v).matchLabels ?? v);
  const parts = Object.entries(labels).map(([k, val]) => `${k}=${String(val)}`);
  return parts.length === 0 ? '<none>' : parts.join(',');
}

/** kubectl's CONDITION of a CSR (extractCSRStatus): Denied, else Approved, else Pending; then ",Failed" and ",Issued". */
function csrCondition(o: KubeObject): string {
  const types = new Set(arr(status(o).conditions).map((c) => rec(c).type));
  let text = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) text += ',Failed';
  if (typeof status(o).certificate === 'string' && status(o).certificate !== '') text += ',Issued';
  return text;
}

export const BUILTIN_COLUMNS: Record<string, ColumnSpec[]> = {
  '/pods': [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', cell: (o) => { const cs = arr(status(o).containerStatuses).map(rec); const total = arr(spec(o).containers).length; return `${cs.filter((c) => c.ready === true).length}/${total}`; } },
    { name: 'Status', type: 'string', cell: podStatus },
    { name: 'Restarts', type: 'string', cell: (o) => String(arr(status(o).containerStatuses).map(rec).reduce((n, c) => n + num(c.restartCount), 0)) },
    AGE_COLUMN,
    { name: 'IP', type: 'string', priority: 1, cell: (o) => status(o).podIP ?? '<none>' },
    { name: 'Node', type: 'string', priority: 1, cell: (o) => spec(o).nodeName ?? '<none>' },
    { name: 'Nominated Node', type: 'string', priority: 1, cell: (o) => status(o).nominatedNodeName ?? '<none>' },
    { name: 'Readiness Gates', type: 'string', priority: 1, cell: () => '<none>' },
  ],
  '/nodes': [
    NAME_COLUMN,
    { name: 'Status', type: 'string', cell: (o) => { const ready = condition(o, 'Ready'); const text = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown'; return spec(o).unschedulable === true ? `${text},SchedulingDisabled` : text; } },
    { name: 'Roles', type: 'string', cell: (o) => Object.keys(o.metadata.labels ?? {}).filter((k) => k.startsWith('node-role.kubernetes.io/')).map((k) => k.slice(24)).join(',') || '<none>' },
    AGE_COLUMN,
    { name: 'Version', type: 'string', cell: (o) => rec(status(o).nodeInfo).kubeletVersion ?? '' },
    { name: 'Internal-IP', type: 'string', priority: 1, cell: (o) => arr(status(o).addresses).map(rec).find((a) => a.type === 'InternalIP')?.address ?? '<none>' },
  ],
  '/namespaces': [NAME_COLUMN, { name: 'Status', type: 'string', cell: (o) => status(o).phase ?? '' }, AGE_COLUMN],
  '/services': [
    NAME_COLUMN,
    { name: 'Type', type: 'string', cell: (o) => spec(o).type ?? 'ClusterIP' },
    { name: 'Cluster-IP', type: 'string', cell: (o) => spec(o).clusterIP ?? '<none>' },
    { name: 'External-IP', type: 'string', cell: () => '<none>' },
    { name: 'Port(s)', type: 'string', cell: servicePorts },
    AGE_COLUMN,
    { name: 'Selector', type: 'string', priority: 1, cell: (o) => selectorText(spec(o).selector) },
  ],
  'certificates.k8s.io/certificatesigningrequests': [
    NAME_COLUMN,
    AGE_COLUMN,
    { name: 'SignerName', type: 'string', cell: (o) => spec(o).signerName ?? '' },
    { name: 'Requestor', type: 'string', cell: (o) => spec(o).username ?? '' },
    { name: 'RequestedDuration', type: 'string', cell: (o) => (typeof spec(o).expirationSeconds === 'number' ? humanDuration((spec(o).expirationSeconds as number) * 1000) : '<none>') },
    { name: 'Condition', type: 'string', cell: csrCondition },
  ],
  '/configmaps': [NAME_COLUMN, { name: 'Data', type: 'integer', cell: (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length }, AGE_COLUMN],
  '/secrets': [NAME_COLUMN, { name: 'Type', type: 'string', cell: (o) => o.type ?? 'Opaque' }, { name: 'Data', type: 'integer', cell: (o) => Object.keys(rec(o.data)).length }, AGE_COLUMN],
  '/serviceaccounts': [NAME_COLUMN, { name: 'Secrets', type: 'integer', cell: (o) => arr(o.secrets).length }, AGE_COLUMN],
  '/events': [
    { name: 'Last Seen', type: 'string', cell: (o, now) => ageOf(o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp, now) },
    { name: 'Type', type: 'string', cell: (o) => o.type ?? '' },
    { name: 'Reason', type: 'string', cell: (o) => o.reason ?? '' },
    { name: 'Object', type: 'string', cell: (o) => { const io = rec(o.involvedObject); return `${String(io.kind ?? '').toLowerCase()}/${String(io.name ?? '')}`; } },
    { name: 'Message', type: 'string', cell: (o) => o.message ?? '' },
  ],
  'apps/deployments': [
    NAME_COLUMN,
    { name: 'Ready', type: 'string', cell: (o) => `${num(status(o).readyReplicas)}/${num(spec(o).replicas)}` },
    { name: 'Up-to-date', type: 'integer', cell: (o) => num(status(o).updatedReplicas) },
    { name: 'Available', type: 'integer', cell: (o) => num(status(o).availableReplicas) },
    AGE_COLUMN,
    ...wideContainers,
    { name: 'Selector', type: 'string', priority: 1, cell: (o) => selectorText(spec(o).selector) },
  ],
  'apps/statefulsets': [NAME_COLUMN, { name: 'Ready', type: 'string', cell: (o) => `${num(status(o).readyReplicas)}/${num(spec(o).replicas)}` }, AGE_COLUMN, ...wideContainers],
  'apps/replicasets': [
    NAME_COLUMN,
    { name: 'Desired', type: 'integer', cell: (o) => num(spec(o).replicas) },
    { name: 'Current', type: 'integer', cell: (o) => num(status(o).replicas) },
    { name: 'Ready', type: 'integer', cell: (o) => num(status(o).readyReplicas) },
    AGE_COLUMN,
  ],
  'coordination.k8s.io/leases': [NAME_COLUMN, { name: 'Holder', type: 'string', cell: (o) => spec(o).holderIdentity ?? '' }, AGE_COLUMN],
  'apiextensions.k8s.io/customresourcedefinitions': [NAME_COLUMN, CREATED_AT],
  'rbac.authorization.k8s.io/roles': [NAME_COLUMN, CREATED_AT],
  'rbac.authorization.k8s.io/clusterroles': [NAME_COLUMN, CREATED_AT],
  'rbac.authorization.k8s.io/rolebindings': [NAME_COLUMN, { name: 'Role', type: 'string', cell: (o) => `${String(rec(o.roleRef).kind)}/${String(rec(o.roleRef).name)}` }, AGE_COLUMN],
  'rbac.authorization.k8s.io/clusterrolebindings': [NAME_COLUMN, { name: 'Role', type: 'string', cell: (o) => `${String(rec(o.roleRef).kind)}/${String(rec(o.roleRef).name)}` }, AGE_COLUMN],
  'networking.k8s.io/ingresses': [
    NAME_COLUMN,
    { name: 'Class', type: 'string', cell: (o) => spec(o).ingressClassName ?? '<none>' },
    { name: 'Hosts', type: 'string', cell: (o) => arr(spec(o).rules).map(rec).map((r) => r.host ?? '*').join(',') || '*' },
    { name: 'Address', type: 'string', cell: () => '' },
    { name: 'Ports', type: 'string', cell: (o) => (arr(spec(o).tls).length > 0 ? '80, 443' : '80') },
    AGE_COLUMN,
  ],
  'policy/poddisruptionbudgets': [
    NAME_COLUMN,
    { name: 'Min Available', type: 'string', cell: (o) => String(spec(o).minAvailable ?? 'N/A') },
    { name: 'Max Unavailable', type: 'string', cell: (o) => String(spec(o).maxUnavailable ?? 'N/A') },
    { name: 'Allowed Disruptions', type: 'integer', cell: (o) => num(status(o).disruptionsAllowed) },
    AGE_COLUMN,
  ],
};
