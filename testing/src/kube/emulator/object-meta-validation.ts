// metadata validation every kind gets (apimachinery ValidateObjectMeta / ValidateObjectMetaUpdate): name rule per kind, labels, annotations, ownerReferences, finalizers.
import { forbiddenField, invalidEach, invalidValue, requiredValue, tooLong } from './field-errors.js';
import type { StatusCause } from './status-errors.js';
import type { KubeObject, ResourceType } from './types.js';
import { arr, rec, str, validateLabels } from './validation-common.js';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isPathSegmentName, isQualifiedName } from './validation-formats.js';

type NameRule = (name: string) => string[];

/** Kinds whose names are only path segments: RBAC objects may be called "system:foo"; core/v1 Events are not checked beyond. */
const PATH_SEGMENT_NAMED = new Set(['rbac.authorization.k8s.io/roles', 'rbac.authorization.k8s.io/rolebindings', 'rbac.authorization.k8s.io/clusterroles', 'rbac.authorization.k8s.io/clusterrolebindings', '/events']);
const DNS_LABEL_NAMED = new Set(['/namespaces']);
const DNS_1035_NAMED = new Set(['/services']);

export function nameRuleOf(type: Pick<ResourceType, 'storageKey'>): NameRule {
  if (PATH_SEGMENT_NAMED.has(type.storageKey)) return isPathSegmentName;
  if (DNS_LABEL_NAMED.has(type.storageKey)) return isDns1123Label;
  if (DNS_1035_NAMED.has(type.storageKey)) return isDns1035Label;
  return (name) => isDns1123Subdomain(name);
}

/** A generateName prefix may end in '-' (apimachinery maskTrailingDash). */
function asPrefix(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const TOTAL_ANNOTATION_SIZE = 256 * 1024;
const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

function validateAnnotations(annotations: unknown): StatusCause[] {
  const path = 'metadata.annotations';
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(rec(annotations))) {
    causes.push(...invalidEach(path, k, isQualifiedName(k.toLowerCase())));
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE) causes.push(tooLong(path, TOTAL_ANNOTATION_SIZE));
  return causes;
}

function validOwnerApiVersion(apiVersion: string): boolean {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return parts[0] !== '';
  return parts.length === 2 && parts[1] !== '';
}

function validateOwnerReferences(refs: unknown): StatusCause[] {
  const path = 'metadata.ownerReferences';
  const causes: StatusCause[] = [];
  let firstController = '';
  arr(refs).forEach((r, i) => {
    const ref = rec(r);
    const at = `${path}[${i}]`;
    const apiVersion = str(ref.apiVersion);
    if (apiVersion === '') causes.push(requiredValue(`${at}.apiVersion`, 'must not be empty'));
    else if (!validOwnerApiVersion(apiVersion)) causes.push(invalidValue(`${at}.apiVersion`, apiVersion, 'must be <group>/<version> or <version>'));
    if (str(ref.kind) === '') causes.push(requiredValue(`${at}.kind`, 'must not be empty'));
    if (str(ref.name) === '') causes.push(requiredValue(`${at}.name`, 'must not be empty'));
    if (str(ref.uid) === '') causes.push(requiredValue(`${at}.uid`, 'must not be empty'));
    if (apiVersion === 'v1' && ref.kind === 'Event') causes.push(invalidValue(at, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const current = `${str(ref.kind)}/${str(ref.name)}`;
      if (firstController !== '') causes.push(invalidValue(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      else firstController = current;
    }
  });
  return causes;
}

function validateFinalizers(finalizers: unknown): StatusCause[] {
  const path = 'metadata.finalizers';
  const list = arr(finalizers).map(str);
  const causes = list.flatMap((f) => invalidEach(path, f, isQualifiedName(f)));
  if (list.includes(FOREGROUND) && list.includes(ORPHAN)) causes.push(invalidValue(path, list, `finalizer ${ORPHAN} and ${FOREGROUND} cannot be both set`));
  return causes;
}

function common(o: KubeObject): StatusCause[] {
  const meta = o.metadata;
  return [
    ...(typeof meta.generation === 'number' && meta.generation < 0 ? [invalidValue('metadata.generation', meta.generation, 'must be greater than or equal to 0')] : []),
    ...validateLabels(meta.labels, 'metadata.labels'),
    ...validateAnnotations(meta.annotations),
    ...validateOwnerReferences(meta.ownerReferences),
  ];
}

/** ValidateObjectMeta on create: name (or generateName) by the kind's rule, namespace, then the common parts. */
export function validateObjectMetaCreate(o: KubeObject, type: Pick<ResourceType, 'storageKey' | 'namespaced'>): StatusCause[] {
  const meta = o.metadata;
  const rule = nameRuleOf(type);
  const causes: StatusCause[] = [];
  const generateName = str(meta.generateName);
  if (generateName !== '') causes.push(...invalidEach('metadata.generateName', generateName, rule(asPrefix(generateName))));
  const name = str(meta.name);
  if (name === '') causes.push(requiredValue('metadata.name', 'name or generateName is required'));
  else causes.push(...invalidEach('metadata.name', name, rule(name)));
  if (type.namespaced) {
    const ns = str(meta.namespace);
    if (ns === '') causes.push(requiredValue('metadata.namespace'));
    else causes.push(...invalidEach('metadata.namespace', ns, isDns1123Label(ns)));
  }
  return [...causes, ...common(o), ...validateFinalizers(meta.finalizers)];
}

/** ValidateObjectMetaUpdate: no new finalizers on an object being deleted, then the common parts. */
export function validateObjectMetaUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (old.metadata.deletionTimestamp !== undefined) {
    const before = new Set(arr(old.metadata.finalizers).map(str));
    const added = [...new Set(arr(o.metadata.finalizers).map(str))].filter((f) => !before.has(f)).sort();
    if (added.length > 0) causes.push(forbiddenField('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
  }
  return [...causes, ...common(o)];
}
