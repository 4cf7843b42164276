// The meta.k8s.io/v1 Table form of lists, objects and watch events (Accept: ...;as=Table): Name, the kind's columns or the CRD's additionalPrinterColumns.
import { AGE_COLUMN, BUILTIN_COLUMNS, NAME_COLUMN, type ColumnSpec } from './builtin-columns.js';
import { ageOf } from './human-duration.js';
import { evaluateJsonPath } from './json-path.js';
import type { KubeObject, ResourceType } from './types.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

function crdColumn(c: ResourceType['printerColumns'][number]): ColumnSpec {
  return {
    name: c.name,
    type: c.type,
    ...(c.format !== undefined ? { format: c.format } : {}),
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
    cell: (o, now) => {
      const values = evaluateJsonPath(o, c.jsonPath);
      if (values.length === 0) return null;
      const v = values[0];
      if (c.type === 'date') return ageOf(v, now);
      if (c.type === 'integer' || c.type === 'number' || c.type === 'boolean') return v;
      if (typeof v === 'string') return v;
      return values.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',');
    },
  };
}

export function columnsOf(type: ResourceType): ColumnSpec[] {
  if (type.custom) {
    if (type.printerColumns.length === 0) return [NAME_COLUMN, AGE_COLUMN];
    return [NAME_COLUMN, ...type.printerColumns.map(crdColumn)];
  }
  return BUILTIN_COLUMNS[type.storageKey] ?? [NAME_COLUMN, AGE_COLUMN];
}

function descriptionOf(c: ColumnSpec, type: ResourceType): string {
  if (c === NAME_COLUMN) return 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
  const crd = type.printerColumns.find((p) => p.name === c.name);
  return crd?.description ?? `${c.name} of the ${type.kind}`;
}

function rowObject(o: KubeObject, include: IncludeObject): Record<string, unknown> | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return o;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}

export function toTable(type: ResourceType, items: KubeObject[], include: IncludeObject, listMeta: Record<string, unknown>): Record<string, unknown> {
  const columns = columnsOf(type);
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: descriptionOf(c, type), priority: c.priority ?? 0 })),
    rows: items.map((o) => {
      const object = rowObject(o, include);
      return { cells: columns.map((c) => c.cell(o, now) ?? null), ...(object === undefined ? {} : { object }) };
    }),
  };
}
