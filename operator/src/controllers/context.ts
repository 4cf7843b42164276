// What every controller is handed: the caches (informers), the client, the settings and the seams (clock, log, metrics, events).
import { OPERATOR_FIELD_MANAGER, type Camera, type RecorderNode } from '@vigil/crds';
import type { Logger } from 'pino';
import {
  isAlreadyExists, isConflict, isNotFound, type Binding, type CertificateSigningRequest, type Clock, type ConfigMap, type Informer, type Ingress, type KubeClient, type KubeObject, type Lease, type Node, type Pod,
  type PrioritySlots, type ResourceType, type Role, type Secret, type Service, type ServiceAccount,
} from '@vigil/kube';
import type { Settings } from '../config/settings.js';
import type { OperatorMetrics } from '../metrics.js';
import type { EventRecorder } from './events.js';

export interface Caches {
  cameras: Informer<Camera>;
  recorderNodes: Informer<RecorderNode>;
  nodes: Informer<Node>;
  leases: Informer<Lease>;
  pods: Informer<Pod>;
  services: Informer<Service>;
  ingresses: Informer<Ingress>;
  configMaps: Informer<ConfigMap>;
  /** Secrets of type Opaque (camera credentials, and the credentials copy the operator writes). */
  secrets: Informer<Secret>;
  /** Secrets of type kubernetes.io/basic-auth (camera credentials too). */
  basicAuthSecrets: Informer<Secret>;
  serviceAccounts: Informer<ServiceAccount>;
  roles: Informer<Role>;
  roleBindings: Informer<Binding>;
  clusterRoleBindings: Informer<Binding>;
  /** The recorders' certificate requests of the configured signer; only with the settings' tls. */
  certificateSigningRequests?: Informer<CertificateSigningRequest>;
}

export interface ControllerContext {
  client: KubeClient;
  caches: Caches;
  namespace: string;
  settings: Settings;
  clock: Clock;
  log: Logger;
  metrics: OperatorMetrics;
  events: EventRecorder;
  /** A node whose heartbeat is older than this is offline. */
  nodeSilenceMs: number;
  /** A member online this long without a break is settled: rebalancing moves cameras only towards settled members. */
  nodeSettleMs: number;
  /** Which Kubernetes Nodes get a RecorderNode. */
  nodeEligible: (labels: Record<string, string>) => boolean;
  /**
   * The Camera status writes in flight, shared by the assignment and the checks: a write that gives a camera a node (or
   * takes it away) is urgent and goes first; a phase or a check condition is routine.
   */
  cameraStatusWrites: PrioritySlots;
}

/**
 * Camera status writes in flight at once (each a small server-side apply): more than kube-apiserver runs of them at
 * once (the operator's priority level runs about 10 at 200 nodes, docs/kubernetes.md §5), so that another is waiting
 * there whenever one ends; which ones go first is decided here.
 */
export const CAMERA_STATUS_WRITES_IN_FLIGHT = 64;

/** Cache key of a namespaced object in the release namespace. */
export function nsKey(ctx: ControllerContext, name: string): string {
  return `${ctx.namespace}/${name}`;
}

/**
 * Creates `want` and puts the answer into `cache` at once, so the next reconcile reads its own write before the watch
 * delivers it. Undefined when the object exists already (another pass or the other replica made it; the watch brings it).
 */
export async function createCached<T extends KubeObject>(ctx: ControllerContext, type: ResourceType, cache: Informer<T>, want: T, signal: AbortSignal): Promise<T | undefined> {
  try {
    const created = await ctx.client.create(type, want, { signal });
    cache.upsert(created);
    return created;
  } catch (err) {
    if (isAlreadyExists(err)) return undefined;
    throw err;
  }
}

/**
 * Server-side apply of the status fields `fieldManager` owns (force: they are this manager's by the contract of
 * kubernetes.md §2, whoever wrote them last), with no resourceVersion: another writer's fields are never dropped and
 * never make this write fail. The answer goes into `cache` at once.
 */
export async function applyStatusCached<T extends KubeObject & { status?: unknown }>(
  ctx: ControllerContext, type: ResourceType, cache: Informer<T>, obj: T, status: unknown, signal: AbortSignal, fieldManager = OPERATOR_FIELD_MANAGER,
): Promise<T> {
  const { name, namespace } = obj.metadata;
  const body = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, ...(namespace ? { namespace } : {}) }, status } as unknown as T;
  const written = await ctx.client.apply<T>(type, body, { fieldManager, force: true, subresource: 'status', signal });
  cache.upsert(written);
  return written;
}

/**
 * applyStatusCached for one write of a batch, where one object's failure must not stop the others: 'gone' when the
 * object was deleted meanwhile (nothing to write), 'conflict' when the API server answered 409 (the caller counts it and
 * requeues); any other error is thrown.
 */
export async function applyStatusInBatch<T extends KubeObject & { status?: unknown }>(
  ctx: ControllerContext, type: ResourceType, cache: Informer<T>, obj: T, status: unknown, signal: AbortSignal, fieldManager = OPERATOR_FIELD_MANAGER,
): Promise<T | 'gone' | 'conflict'> {
  try {
    return await applyStatusCached(ctx, type, cache, obj, status, signal, fieldManager);
  } catch (err) {
    if (isNotFound(err)) return 'gone';
    if (isConflict(err)) return 'conflict';
    throw err;
  }
}
