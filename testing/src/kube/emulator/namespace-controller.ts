// Namespaces: a "default" ServiceAccount in each new one, and deletion that empties the namespace before it goes.
import type { ObjectApi } from './object-api.js';
import { deleteObject } from './object-deletion.js';
import type { ResourceRegistry } from './resource-registry.js';
import { KubeError } from './status-errors.js';
import { isRecord, type KubeObject, type ResourceType } from './types.js';
import { WorkQueue } from './work-queue.js';

const NAMESPACES = '/namespaces';

export class NamespaceController {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly api: ObjectApi,
    private readonly registry: ResourceRegistry,
    private readonly namespaceType: ResourceType,
    private readonly serviceAccountType: ResourceType,
  ) {
    this.queue = new WorkQueue((ns) => this.reconcile(ns));
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      if (storageKey === NAMESPACES) {
        if (ev.type !== 'DELETED') this.queue.add(ev.object.metadata.name as string);
        return;
      }
      const ns = ev.object.metadata.namespace;
      if (ns !== undefined && ev.type === 'DELETED' && this.isTerminating(ns)) this.queue.add(ns);
    });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private isTerminating(ns: string): boolean {
    return this.api.store.get(NAMESPACES, undefined, ns)?.metadata.deletionTimestamp !== undefined;
  }

  private reconcile(name: string): void {
    const ns = this.api.find(this.namespaceType, undefined, name);
    if (ns === undefined) return;
    if (ns.metadata.deletionTimestamp === undefined) {
      if (this.api.find(this.serviceAccountType, name, 'default') === undefined) {
        try {
          this.api.create(this.serviceAccountType, name, { metadata: { name: 'default' } });
        } catch (err) {
          if (!(err instanceof KubeError && err.code === 409)) throw err;
        }
      }
      return;
    }
    let remaining = 0;
    for (const storageKey of this.api.store.storageKeys()) {
      if (storageKey === NAMESPACES) continue;
      const type = this.registry.typesOfStorage(storageKey)[0];
      for (const o of this.api.store.list(storageKey, name)) {
        remaining++;
        if (type !== undefined && o.metadata.deletionTimestamp === undefined) {
          try {
            deleteObject(this.api, type, name, o.metadata.name as string, { propagationPolicy: 'Background' });
          } catch (err) {
            if (!(err instanceof KubeError && err.code === 404)) throw err;
          }
        }
      }
    }
    const stillThere = this.api.store.storageKeys().some((k) => k !== NAMESPACES && this.api.store.list(k, name).length > 0);
    if (stillThere && remaining > 0) return;
    this.finish(ns);
  }

  /** Drops the "kubernetes" finalizer and, with no other finalizer left, the namespace itself. */
  private finish(ns: KubeObject): void {
    const spec = isRecord(ns.spec) ? ns.spec : {};
    const next: KubeObject = { ...ns, spec: { ...spec, finalizers: [] } };
    if ((ns.metadata.finalizers ?? []).length === 0) this.api.store.remove(NAMESPACES, next);
    else this.api.store.put(NAMESPACES, next);
  }
}
