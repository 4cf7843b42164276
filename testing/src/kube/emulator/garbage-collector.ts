// Garbage collection through ownerReferences as kube-controller-manager's collector does it: dependents of a deleted owner go too (Background), first (Foreground), or lose the reference (Orphan); dependents whose owners are all absent go; owners are found by kind, name and namespace, and a reference that crosses namespaces is reported and treated as absent (or, from a cluster-scoped dependent, as unresolvable).
import type { ObjectApi } from './object-api.js';
import { nowSeconds } from './object-api.js';
import { deleteObject, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, removeFinalizer } from './object-deletion.js';
import type { ResourceRegistry } from './resource-registry.js';
import { KubeError } from './status-errors.js';
import type { KubeObject, OwnerReference, ResourceType } from './types.js';
import { WorkQueue } from './work-queue.js';

interface Dependent {
  storageKey: string;
  object: KubeObject;
}

/** What looking an owner reference up found. */
type OwnerState = 'present' | 'absent' | 'unresolvable';

const COMPONENT = 'garbage-collector-controller';
const DEPENDENT_PREFIX = 'dependent|';

export class GarbageCollector {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;
  /** Owners being handled, by uid: the owner object and its storage bucket. */
  private readonly owners = new Map<string, { storageKey: string; object: KubeObject; gone: boolean }>();
  /** Invalid references already reported, so the Warning Event is written once per dependent and owner. */
  private readonly reported = new Set<string>();

  constructor(private readonly api: ObjectApi, private readonly registry: ResourceRegistry) {
    this.queue = new WorkQueue((key) => (key.startsWith(DEPENDENT_PREFIX) ? this.verifyOwners(key) : this.process(key)));
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      const o = ev.object;
      const uid = o.metadata.uid as string;
      const finalizers = o.metadata.finalizers ?? [];
      if (ev.type === 'DELETED') {
        this.owners.set(uid, { storageKey, object: o, gone: true });
        this.queue.add(uid);
        // A dependent of an owner in foreground deletion going away may let that owner finish.
        for (const ref of o.metadata.ownerReferences ?? []) if (this.owners.has(ref.uid) && !this.owners.get(ref.uid)?.gone) this.queue.add(ref.uid);
        return;
      }
      if (o.metadata.deletionTimestamp !== undefined && (finalizers.includes(ORPHAN_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER))) {
        this.owners.set(uid, { storageKey, object: o, gone: false });
        this.queue.add(uid);
      }
      // An object whose owners may not exist (created with a dangling reference, or one pointing elsewhere).
      if ((o.metadata.ownerReferences ?? []).length > 0 && o.metadata.deletionTimestamp === undefined) {
        this.queue.add(`${DEPENDENT_PREFIX}${storageKey}|${o.metadata.namespace ?? ''}|${o.metadata.name as string}`);
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

  /** The served type an owner reference names: its exact version, else any served version of that group and kind. */
  private ownerType(ref: OwnerReference): ResourceType | undefined {
    const exact = this.registry.byKind(ref.apiVersion, ref.kind);
    if (exact !== undefined) return exact;
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
    return this.registry.all().find((t) => t.group === group && t.kind === ref.kind);
  }

  private ownerState(dependent: KubeObject, ref: OwnerReference): OwnerState {
    const type = this.ownerType(ref);
    // A kind the server does not serve cannot be looked up: the real collector keeps retrying and deletes nothing.
    if (type === undefined) return 'unresolvable';
    const dependentNamespace = dependent.metadata.namespace;
    if (type.namespaced && dependentNamespace === undefined) {
      this.reportInvalidNamespace(dependent, ref);
      return 'unresolvable';
    }
    const owner = this.api.store.get(type.storageKey, type.namespaced ? dependentNamespace : undefined, ref.name);
    if (owner !== undefined && owner.metadata.uid === ref.uid) return 'present';
    if (type.namespaced && this.api.store.list(type.storageKey).some((o) => o.metadata.uid === ref.uid)) this.reportInvalidNamespace(dependent, ref);
    return 'absent';
  }

  /** The Warning Event kube-controller-manager writes for an owner reference to another namespace (or from a cluster-scoped object to a namespaced kind). */
  private reportInvalidNamespace(dependent: KubeObject, ref: OwnerReference): void {
    const key = `${dependent.metadata.uid as string}|${ref.uid}`;
    const events = this.registry.lookup('', 'v1', 'events');
    if (this.reported.has(key) || events === undefined) return;
    this.reported.add(key);
    const namespace = dependent.metadata.namespace ?? '';
    const now = nowSeconds();
    try {
      this.api.create(events, namespace === '' ? 'default' : namespace, {
        metadata: { generateName: `${dependent.metadata.name as string}.` },
        involvedObject: { apiVersion: dependent.apiVersion, kind: dependent.kind, name: dependent.metadata.name, uid: dependent.metadata.uid, ...(namespace !== '' ? { namespace } : {}) },
        reason: 'OwnerRefInvalidNamespace',
        message: `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace ${JSON.stringify(namespace)}`,
        type: 'Warning',
        source: { component: COMPONENT },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
    } catch {
      // The namespace may be going away; the event is informational.
    }
  }

  /** A dependent whose every owner is verified absent is deleted (background), as the real collector's attemptToDelete. */
  private verifyOwners(key: string): void {
    const [, storageKey, namespace, name] = key.split('|') as [string, string, string, string];
    const type = this.typeOf(storageKey);
    const object = type === undefined ? undefined : this.api.find(type, namespace === '' ? undefined : namespace, name);
    if (type === undefined || object === undefined || object.metadata.deletionTimestamp !== undefined) return;
    const refs = object.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const states = refs.map((r) => this.ownerState(object, r));
    if (states.every((s) => s === 'absent')) this.deleteDependent({ storageKey, object }, 'Background');
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
      // Only when no other owner remains does the dependent go (the real collector's rule).
      for (const d of dependents) this.queue.add(`${DEPENDENT_PREFIX}${d.storageKey}|${d.object.metadata.namespace ?? ''}|${d.object.metadata.name as string}`);
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
}
