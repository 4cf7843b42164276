// Status the controllers would write for workloads the emulator does not run: Deployments, StatefulSets, ReplicaSets, DaemonSets, PodDisruptionBudgets and PVCs report themselves done.
import { createHash } from 'node:crypto';
import type { ObjectApi } from './object-api.js';
import { nowSeconds } from './object-api.js';
import type { ResourceRegistry } from './resource-registry.js';
import { KubeError } from './status-errors.js';
import { isRecord, type KubeObject } from './types.js';
import { WorkQueue } from './work-queue.js';

const STATUS_WRITERS: Record<string, (o: KubeObject, nodes: number) => Record<string, unknown>> = {
  'apps/deployments': (o) => {
    const replicas = replicasOf(o);
    const now = nowSeconds();
    return {
      observedGeneration: o.metadata.generation,
      replicas, updatedReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas,
      conditions: [
        { type: 'Available', status: 'True', lastUpdateTime: now, lastTransitionTime: now, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', lastUpdateTime: now, lastTransitionTime: now, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${o.metadata.name as string}-${revision(o)}" has successfully progressed.` },
      ],
    };
  },
  'apps/statefulsets': (o) => {
    const replicas = replicasOf(o);
    const rev = `${o.metadata.name as string}-${revision(o)}`;
    return { observedGeneration: o.metadata.generation, replicas, readyReplicas: replicas, currentReplicas: replicas, updatedReplicas: replicas, availableReplicas: replicas, currentRevision: rev, updateRevision: rev, collisionCount: 0 };
  },
  'apps/replicasets': (o) => {
    const replicas = replicasOf(o);
    return { observedGeneration: o.metadata.generation, replicas, fullyLabeledReplicas: replicas, readyReplicas: replicas, availableReplicas: replicas };
  },
  'apps/daemonsets': (o, nodes) => ({
    observedGeneration: o.metadata.generation,
    currentNumberScheduled: nodes, desiredNumberScheduled: nodes, numberReady: nodes, numberAvailable: nodes, updatedNumberScheduled: nodes, numberMisscheduled: 0,
  }),
  'policy/poddisruptionbudgets': (o) => ({
    observedGeneration: o.metadata.generation, disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0,
    conditions: [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', lastTransitionTime: nowSeconds(), observedGeneration: o.metadata.generation }],
  }),
  '/persistentvolumeclaims': (o) => {
    const spec = isRecord(o.spec) ? o.spec : {};
    const resources = isRecord(spec.resources) && isRecord(spec.resources.requests) ? spec.resources.requests : {};
    return { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage: resources.storage ?? '1Gi' } };
  },
};

function replicasOf(o: KubeObject): number {
  const spec = isRecord(o.spec) ? o.spec : {};
  return typeof spec.replicas === 'number' ? spec.replicas : 1;
}

function revision(o: KubeObject): string {
  const spec = isRecord(o.spec) ? o.spec : {};
  return createHash('sha1').update(JSON.stringify(spec.template ?? {})).digest('hex').slice(0, 10);
}

export class WorkloadStatus {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly api: ObjectApi, private readonly registry: ResourceRegistry) {
    this.queue = new WorkQueue((key) => this.reconcile(key));
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      if (ev.type === 'DELETED') return;
      if (STATUS_WRITERS[storageKey] !== undefined) this.queue.add(`${storageKey}|${ev.object.metadata.namespace ?? ''}|${ev.object.metadata.name as string}`);
      if (storageKey === '/nodes' && ev.type === 'ADDED') {
        for (const ds of api.store.list('apps/daemonsets')) this.queue.add(`apps/daemonsets|${ds.metadata.namespace ?? ''}|${ds.metadata.name as string}`);
      }
    });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private reconcile(key: string): void {
    const [storageKey, namespace, name] = key.split('|') as [string, string, string];
    const type = this.registry.typesOfStorage(storageKey)[0];
    const writer = STATUS_WRITERS[storageKey];
    if (type === undefined || writer === undefined) return;
    const o = this.api.find(type, namespace === '' ? undefined : namespace, name);
    if (o === undefined || o.metadata.deletionTimestamp !== undefined) return;
    const wanted = writer(o, this.api.store.list('/nodes').length);
    const current = isRecord(o.status) ? o.status : {};
    const differs = Object.entries(wanted).some(([k, v]) => k !== 'conditions' && JSON.stringify(current[k]) !== JSON.stringify(v)) || (wanted.conditions !== undefined && current.conditions === undefined);
    if (!differs) return;
    try {
      this.api.patch(type, namespace === '' ? undefined : namespace, name, 'merge', { status: wanted }, { subresource: 'status', fieldManager: 'kube-controller-manager' });
    } catch (err) {
      if (!(err instanceof KubeError && err.code === 404)) throw err;
    }
  }
}
