// Cascading deletion through ownerReferences: dependents of a deleted owner go too (Background), first (Foreground), or lose the reference (Orphan).
import type { ObjectApi } from './object-api.js';
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, removeFinalizer } from './object-deletion.js';
import type { ResourceRegistry } from './resource-registry.js';
import { KubeError } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';
import { WorkQueue } from './work-queue.js';

interface Dependent {
  storageKey: string;
  object: KubeObject;
}

export class GarbageCollector {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;
  /** Owners being handled, by uid: the owner object and its storage bucket. */
  private readonly owners = new Map<string, { storageKey: string; object: KubeObject; gone: boolean }>();

  constructor(private readonly api: ObjectApi, private readonly registry: ResourceRegistry) {
    this.queue = new WorkQueue((uid) => this.process(uid));
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      const o = ev.object;
      const uid = o.metadata.uid as string;
      const finalizers = o.metadata.finalizers ?? [];
      if (ev.type === 'DELETED') {
        this.owners.set(uid, { storageKey, object: o, gone: true });
        this.queue.add(uid);
      } else if (o.metadata.deletionTimestamp !== undefined && (finalizers.includes(ORPHAN_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER))) {
        this.owners.set(uid, { storageKey, object: o, gone: false });
        this.queue.add(uid);
      }
      // A dependent of an owner in foreground deletion going away may let that owner finish.
      if (ev.type === 'DELETED') {
        for (const ref of o.metadata.ownerReferences ?? []) if (this.owners.has(ref.uid) && !this.owners.get(ref.uid)?.gone) this.queue.add(ref.uid);
      }
    });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private typeOf(storageKey: string): ResourceType | undefined {
    return this.registry.typesOfStorage(storageKey)[0];
  }

  private dependentsOf(uid: string): Dependent[] {
    const out: Dependent[] = [];
    for (const storageKey of this.api.store.storageKeys()) {
      for (const object of this.api.store.list(storageKey)) {
        if ((object.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) out.push({ storageKey, object });
      }
    }
    return out;
  }

  private deleteDependent(d: Dependent, policy: 'Background' | 'Foreground'): void {
    const type = this.typeOf(d.storageKey);
    if (type === undefined || d.object.metadata.deletionTimestamp !== undefined) return;
    try {
      deleteObject(this.api, type, d.object.metadata.namespace, d.object.metadata.name as string, { propagationPolicy: policy });
    } catch (err) {
      if (!(err instanceof KubeError && err.code === 404)) throw err;
    }
  }

  private process(uid: string): void {
    const owner = this.owners.get(uid);
    if (owner === undefined) return;
    const dependents = this.dependentsOf(uid);
    if (owner.gone) {
      this.owners.delete(uid);
      for (const d of dependents) {
        // Only when no other owner remains does the dependent go (the real collector's rule).
        const others = (d.object.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (others.some((r) => this.ownerExists(r.uid))) continue;
        this.deleteDependent(d, 'Background');
      }
      return;
    }
    const type = this.typeOf(owner.storageKey);
    const current = type === undefined ? undefined : this.api.find(type, owner.object.metadata.namespace, owner.object.metadata.name as string);
    if (type === undefined || current === undefined) {
      this.owners.delete(uid);
      return;
    }
    const finalizers = current.metadata.finalizers ?? [];
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const d of dependents) {
        const dType = this.typeOf(d.storageKey);
        if (dType === undefined) continue;
        const refs = (d.object.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        const next: KubeObject = { ...d.object, metadata: { ...d.object.metadata, ownerReferences: refs } };
        if (refs.length === 0) delete next.metadata.ownerReferences;
        this.api.store.put(d.storageKey, next);
      }
      removeFinalizer(this.api, type, current, ORPHAN_FINALIZER);
    } else if (finalizers.includes(FOREGROUND_FINALIZER)) {
      const blocking = dependents.filter((d) => (d.object.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
      for (const d of dependents) this.deleteDependent(d, 'Foreground');
      if (blocking.length === 0) removeFinalizer(this.api, type, current, FOREGROUND_FINALIZER);
    }
    if (this.api.find(type, owner.object.metadata.namespace, owner.object.metadata.name as string) === undefined) this.owners.delete(uid);
  }

  private ownerExists(uid: string): boolean {
    for (const storageKey of this.api.store.storageKeys()) {
      if (this.api.store.list(storageKey).some((o) => o.metadata.uid === uid)) return true;
    }
    return false;
  }
}
