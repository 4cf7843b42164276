// Custom resource definitions: serving their versions as soon as they are created, the Established condition, and removing their objects on delete.
import type { BuiltinSchemas } from './builtin-schemas.js';
import type { ObjectApi } from './object-api.js';
import { nowSeconds } from './object-api.js';
import { removeFinalizer } from './object-deletion.js';
import type { ResourceRegistry } from './resource-registry.js';
import { schemaFromJsonSchemaProps, type Schema } from './schema.js';
import { isRecord, type KubeObject, type PrinterColumn, type ResourceType } from './types.js';
import { WorkQueue } from './work-queue.js';

export const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';
const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
const ALL_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** The ResourceTypes a CRD object defines (one per served version). */
export function typesOfCrd(crd: KubeObject, schemas: BuiltinSchemas): ResourceType[] {
  const spec = isRecord(crd.spec) ? crd.spec : {};
  const names = isRecord(spec.names) ? spec.names : {};
  const group = String(spec.group ?? '');
  const plural = String(names.plural ?? '');
  const kind = String(names.kind ?? '');
  if (group === '' || plural === '' || kind === '') return [];
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
  const objectMeta = schemas.model('V1ObjectMeta');
  return versions.filter((v) => v.served !== false).map((v) => {
    const subresources = isRecord(v.subresources) ? v.subresources : {};
    const openApi = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    const parsed: Schema = openApi === undefined ? { type: 'object', preserveUnknownFields: true } : schemaFromJsonSchemaProps(openApi);
    const root: Schema = {
      ...parsed,
      properties: { ...(parsed.properties ?? {}), apiVersion: { type: 'string' }, kind: { type: 'string' }, ...(objectMeta !== undefined ? { metadata: objectMeta } : {}) },
    };
    const columns: PrinterColumn[] = (Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns.filter(isRecord) : []).map((c) => ({
      name: String(c.name),
      type: String(c.type ?? 'string'),
      jsonPath: String(c.jsonPath ?? ''),
      ...(typeof c.format === 'string' ? { format: c.format } : {}),
      ...(typeof c.description === 'string' ? { description: c.description } : {}),
      ...(typeof c.priority === 'number' ? { priority: c.priority } : {}),
    }));
    const selectable = (Array.isArray(v.selectableFields) ? v.selectableFields.filter(isRecord) : []).map((f) => String(f.jsonPath ?? '').replace(/^\./, ''));
    return {
      group,
      version: String(v.name),
      kind,
      listKind: String(names.listKind ?? `${kind}List`),
      plural,
      singular: String(names.singular ?? kind.toLowerCase()),
      shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
      categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
      namespaced: spec.scope !== 'Cluster',
      verbs: ALL_VERBS,
      subresources: [...(isRecord(subresources.status) ? ['status'] : []), ...(isRecord(subresources.scale) ? ['scale'] : [])],
      schema: root,
      custom: true,
      storageKey: `${group}/${plural}`,
      printerColumns: columns,
      fieldSelectors: selectable,
      hasGeneration: true,
    };
  });
}

export class CrdController {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly api: ObjectApi,
    private readonly registry: ResourceRegistry,
    private readonly schemas: BuiltinSchemas,
    private readonly crdType: ResourceType,
  ) {
    this.queue = new WorkQueue((name) => this.reconcile(name));
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      if (storageKey !== CRD_STORAGE) return;
      const name = ev.object.metadata.name as string;
      // Served at once, so a custom resource can be created right after its CRD.
      if (ev.type === 'DELETED') this.unserve(ev.object);
      else if (ev.object.metadata.deletionTimestamp === undefined) this.registry.setCustomTypes(name, typesOfCrd(ev.object, this.schemas));
      this.queue.add(name);
    });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }

  private unserve(crd: KubeObject): void {
    const types = typesOfCrd(crd, this.schemas);
    this.registry.setCustomTypes(crd.metadata.name as string, []);
    for (const t of types.slice(0, 1)) this.api.store.dropBucket(t.storageKey);
  }

  private reconcile(name: string): void {
    const crd = this.api.find(this.crdType, undefined, name);
    if (crd === undefined) return;
    if (crd.metadata.deletionTimestamp !== undefined) {
      const types = typesOfCrd(crd, this.schemas);
      const storageKey = types[0]?.storageKey;
      if (storageKey !== undefined) for (const o of this.api.store.list(storageKey)) this.api.store.remove(storageKey, o);
      this.registry.setCustomTypes(name, []);
      removeFinalizer(this.api, this.crdType, crd, CLEANUP_FINALIZER);
      return;
    }
    const spec = isRecord(crd.spec) ? crd.spec : {};
    const names = isRecord(spec.names) ? spec.names : {};
    const versions = Array.isArray(spec.versions) ? spec.versions.filter(isRecord) : [];
    const storage = versions.find((v) => v.storage === true)?.name;
    const status = isRecord(crd.status) ? crd.status : {};
    const stored = Array.isArray(status.storedVersions) ? status.storedVersions.map(String) : [];
    const storedVersions = storage !== undefined && !stored.includes(String(storage)) ? [...stored, String(storage)] : stored;
    const established = Array.isArray(status.conditions) && status.conditions.some((c) => isRecord(c) && c.type === 'Established' && c.status === 'True');
    const hasFinalizer = (crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER);
    if (established && hasFinalizer && JSON.stringify(status.acceptedNames) === JSON.stringify(names) && storedVersions.length === stored.length) return;
    const now = nowSeconds();
    const next: KubeObject = {
      ...crd,
      metadata: { ...crd.metadata, finalizers: hasFinalizer ? crd.metadata.finalizers : [...(crd.metadata.finalizers ?? []), CLEANUP_FINALIZER] },
      status: {
        conditions: [
          { type: 'NamesAccepted', status: 'True', lastTransitionTime: now, reason: 'NoConflicts', message: 'no conflicts found' },
          { type: 'Established', status: 'True', lastTransitionTime: now, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
        ],
        acceptedNames: names,
        storedVersions,
      },
    };
    this.api.store.put(CRD_STORAGE, next);
  }
}
