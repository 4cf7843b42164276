// What every controller is handed: the caches (informers), the client, the settings and the seams (clock, log, metrics, events).
import type { Camera, RecorderNode } from '@vigil/crds';
import type { Logger } from 'pino';
import { isAlreadyExists, type Clock, type KubeClient, type KubeObject, type ConfigMap, type Ingress, type Lease, type Node, type Pod, type ResourceType, type Secret, type Service, type Informer } from '@vigil/kube';
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
  /** Which Kubernetes Nodes get a RecorderNode. */
  nodeEligible: (labels: Record<string, string>) => boolean;
}

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
