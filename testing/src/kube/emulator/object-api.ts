// The API's semantics, independent of HTTP: get, list, create, update, patch and delete of any served resource.
import { randomUUID } from 'node:crypto';
import type { ValidatingAdmission } from './admission.js';
import type { BuiltinContext } from './builtin-defaults.js';
import { prepareBuiltin } from './builtin-defaults.js';
import { validateObject } from './builtin-validation.js';
import { parseFieldSelector, pinnedName } from './field-selector.js';
import { parseLabelSelector } from './label-selector.js';
import { hasPath } from './field-sets.js';
import { applyConflict, ApplyConflictError, fieldsFromLastApplied, recordUpdate, serverSideApply } from './managed-fields.js';
import { objectKey, type ObjectStore } from './object-store.js';
import { generatedName } from './object-names.js';
import { applyJsonPatch, applyMergePatch } from './patch-json.js';
import { applyStrategicMergePatch } from './patch-strategic.js';
import { alreadyExists, badRequest, conflict, forbidden, invalid, KubeError, namespaceNotFound, notFound, unsupportedMediaType } from './status-errors.js';
import { groupVersion, isRecord, type KubeObject, type ResourceType, type UserInfo } from './types.js';
import { prepareCsrCreate, prepareCsrUpdate } from './csr-strategy.js';
import { CSR_STORAGE_KEY } from './csr-validation.js';
import { checkBodyType, checkName, generationView, normalizeBySchema, sameContent, type FieldValidation } from './write-preparation.js';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  subresource?: string;
  /** Collects Warning headers for the answer. */
  warnings?: string[];
  /** Server-side apply: take fields other managers own. */
  force?: boolean;
  /** The authenticated caller (CertificateSigningRequests record it; admission plugins may authorize with it). */
  user?: UserInfo;
}

export interface ListOptions {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  limit?: number;
  continueToken?: string | null;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export class ObjectApi {
  constructor(
    readonly store: ObjectStore,
    private readonly builtinContext: BuiltinContext,
    /** Validating admission plugins, run after defaulting and validation, before storage (also for dry runs). */
    private readonly admission: ValidatingAdmission[] = [],
  ) {}

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(type.storageKey, type.namespaced ? namespace : undefined, name);
    if (object === undefined) throw notFound(type, name);
    return object;
  }

  find(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(type.storageKey, type.namespaced ? namespace : undefined, name);
  }

  list(type: ResourceType, namespace: string | undefined, opts: ListOptions = {}): ListResult {
    const labels = parseLabelSelector(opts.labelSelector);
    const fields = parseFieldSelector(opts.fieldSelector, type);
    const resourceVersion = String(this.store.currentRv);
    const pinned = pinnedName(opts.fieldSelector);
    let candidates: KubeObject[];
    if (pinned !== undefined && (namespace !== undefined || !type.namespaced)) {
      const one = this.find(type, namespace, pinned);
      candidates = one === undefined ? [] : [one];
    } else candidates = this.store.list(type.storageKey, type.namespaced ? namespace : undefined);
    let items = candidates.filter((o) => labels(o.metadata.labels) && fields(o));
    items.sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
    if (opts.continueToken) {
      const start = decodeContinue(opts.continueToken);
      items = items.filter((o) => compareKeys(keyOf(o), start) > 0);
    }
    if (opts.limit !== undefined && opts.limit > 0 && items.length > opts.limit) {
      const page = items.slice(0, opts.limit);
      const last = page[page.length - 1] as KubeObject;
      return { items: page, resourceVersion, continueToken: encodeContinue(keyOf(last), resourceVersion), remainingItemCount: items.length - page.length };
    }
    return { items, resourceVersion };
  }

  create(type: ResourceType, namespace: string | undefined, body: unknown, opts: WriteOptions = {}, managedFieldsDone = false): KubeObject {
    const object = checkBodyType(body, type);
    const meta = object.metadata;
    if (type.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && namespace !== undefined && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace ?? meta.namespace ?? 'default';
      this.checkNamespaceWritable(meta.namespace);
    } else delete meta.namespace;
    const requestedName = meta.name ?? '';
    if ((meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '') meta.name = generatedName(meta.generateName);
    checkName(type, object);
    if (this.find(type, meta.namespace, meta.name as string) !== undefined) throw alreadyExists(type, meta.name as string);
    normalizeBySchema(object, type, opts.fieldValidation ?? 'Warn', opts.warnings ?? []);
    // Status is written through /status only: a create starts without it (kind defaults may set one).
    if (type.subresources.includes('status')) delete object.status;
    meta.uid = randomUUID();
    meta.creationTimestamp = nowSeconds();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    if (type.hasGeneration || type.custom) meta.generation = 1;
    else delete meta.generation;
    if (type.storageKey === CSR_STORAGE_KEY) prepareCsrCreate(object, opts.user);
    const causes = [...prepareBuiltin(type, object, undefined, this.builtinContext), ...validateObject(type, object, undefined, opts.subresource)];
    if (causes.length > 0) throw invalid(type, meta.name as string, causes);
    this.admit({ operation: 'CREATE', type, object, oldObject: undefined, subresource: opts.subresource, name: requestedName, namespace: meta.namespace, warnings: opts.warnings ?? [], ...(opts.user !== undefined ? { user: opts.user } : {}) });
    if (!managedFieldsDone) {
      delete meta.managedFields;
      if (opts.fieldManager !== undefined) recordUpdate(undefined, object, this.ownership(type, opts));
    }
    if (opts.dryRun) return object;
    return this.store.put(type.storageKey, object);
  }

  update(type: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: WriteOptions = {}): KubeObject {
    const existing = this.get(type, namespace, name);
    const incoming = checkBodyType(body, type);
    if (incoming.metadata.name !== undefined && incoming.metadata.name !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name}) does not match the name on the URL (${name})`);
    }
    const rv = incoming.metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== existing.metadata.resourceVersion) throw conflict(type, name);
    return this.replace(type, existing, incoming, opts);
  }

  patch(type: ResourceType, namespace: string | undefined, name: string, patchType: PatchType, patch: unknown, opts: WriteOptions = {}): KubeObject {
    if (patchType === 'apply') return this.apply(type, namespace, name, patch, opts);
    const existing = this.get(type, namespace, name);
    let patched: unknown;
    if (patchType === 'merge') patched = applyMergePatch(existing, patch);
    else if (patchType === 'json') patched = applyJsonPatch(existing, patch);
    else {
      if (type.custom) throw unsupportedMediaType('application/strategic-merge-patch+json');
      patched = applyStrategicMergePatch(existing, patch, type.schema);
    }
    if (!isRecord(patched)) throw badRequest('the patch did not produce an object');
    const incoming = checkBodyType(patched, type);
    if (incoming.metadata.name !== name) throw badRequest(`the name of the object (${String(incoming.metadata.name)}) does not match the name on the URL (${name})`);
    const rv = incoming.metadata.resourceVersion;
    if (rv !== undefined && rv !== existing.metadata.resourceVersion) throw conflict(type, name);
    return this.replace(type, existing, incoming, opts);
  }

  private apply(type: ResourceType, namespace: string | undefined, name: string, patch: unknown, opts: WriteOptions): KubeObject {
    if (!isRecord(patch)) throw badRequest('error decoding YAML: the applied configuration is not an object');
    if (typeof patch.apiVersion !== 'string' || typeof patch.kind !== 'string') throw badRequest('apiVersion and kind must be set in the applied configuration');
    if (opts.fieldManager === undefined || opts.fieldManager === '') throw badRequest('PATCH, application/apply-patch+yaml requires fieldManager to be set');
    const applied = checkBodyType(patch, type);
    if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
      throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
    }
    applied.metadata.name = name;
    const existing = this.find(type, namespace, name);
    const ctx = { ...this.ownership(type, opts), force: opts.force ?? false };
    const merged = this.applyUpgradingClientSide(existing, applied, ctx);
    if (existing === undefined) {
      if (opts.subresource !== undefined) throw notFound(type, name);
      return this.create(type, namespace, merged, opts, true);
    }
    const rv = applied.metadata.resourceVersion;
    if (rv !== undefined && rv !== existing.metadata.resourceVersion) throw conflict(type, name);
    merged.metadata.resourceVersion = existing.metadata.resourceVersion;
    return this.replace(type, existing, checkBodyType(merged, type), opts, true);
  }

  /**
   * Server-side apply. For the manager `kubectl`, conflicts on fields it set with client-side apply (still as its
   * last-applied-configuration says) are not conflicts: it takes them over, as the real server upgrades such objects.
   */
  private applyUpgradingClientSide(existing: KubeObject | undefined, applied: KubeObject, ctx: Parameters<typeof serverSideApply>[2]): KubeObject {
    try {
      return serverSideApply(existing, applied, ctx);
    } catch (err) {
      if (!(err instanceof ApplyConflictError) || ctx.manager !== 'kubectl' || existing === undefined) throw err;
      const allowed = fieldsFromLastApplied(existing, ctx);
      if (allowed === undefined) throw err;
      const remaining = err.conflicts.filter((c) => !hasPath(allowed, c.path));
      if (remaining.length > 0) throw applyConflict(remaining);
      return serverSideApply(existing, applied, { ...ctx, force: true });
    }
  }

  /** The common tail of update and patch: subresource rules, immutable metadata, schema, generation, finalizers. */
  private replace(type: ResourceType, existing: KubeObject, incoming: KubeObject, opts: WriteOptions, managedFieldsDone = false): KubeObject {
    const statusIsSubresource = type.subresources.includes('status');
    let next: KubeObject;
    if (opts.subresource === 'status' || opts.subresource === 'approval') {
      next = { ...existing, metadata: { ...existing.metadata } };
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
      if (managedFieldsDone) next.metadata.managedFields = incoming.metadata.managedFields;
    } else {
      next = incoming;
      if (statusIsSubresource) {
        if (existing.status === undefined) delete next.status;
        else next.status = existing.status;
      }
    }
    const meta = next.metadata;
    const old = existing.metadata;
    meta.name = old.name;
    meta.uid = old.uid;
    meta.creationTimestamp = old.creationTimestamp;
    if (old.namespace !== undefined) meta.namespace = old.namespace;
    else delete meta.namespace;
    if (old.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = old.deletionTimestamp;
      meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    meta.resourceVersion = old.resourceVersion;
    normalizeBySchema(next, type, opts.fieldValidation ?? 'Warn', opts.warnings ?? []);
    if (type.storageKey === CSR_STORAGE_KEY) prepareCsrUpdate(next, existing, opts.subresource, nowSeconds());
    if (old.generation !== undefined) {
      meta.generation = generationView(next, statusIsSubresource) === generationView(existing, statusIsSubresource) ? old.generation : old.generation + 1;
    }
    const causes = [...prepareBuiltin(type, next, existing, this.builtinContext), ...validateObject(type, next, existing, opts.subresource)];
    if (causes.length > 0) throw invalid(type, meta.name as string, causes);
    this.admit({ operation: 'UPDATE', type, object: next, oldObject: existing, subresource: opts.subresource, name: meta.name as string, namespace: meta.namespace, warnings: opts.warnings ?? [], ...(opts.user !== undefined ? { user: opts.user } : {}) });
    // A request that rewrites managedFields itself (kubectl's client-side to server-side apply migration) is obeyed.
    const rewritesOwnership = meta.managedFields !== undefined && JSON.stringify(meta.managedFields) !== JSON.stringify(old.managedFields);
    if (!managedFieldsDone && !rewritesOwnership) {
      meta.managedFields = old.managedFields;
      if (opts.fieldManager !== undefined) recordUpdate(existing, next, this.ownership(type, opts));
    }
    if (rewritesOwnership && Array.isArray(meta.managedFields) && meta.managedFields.length === 0) delete meta.managedFields;
    if (old.deletionTimestamp !== undefined && (meta.finalizers ?? []).length === 0) {
      if (opts.dryRun) return next;
      return this.store.remove(type.storageKey, next) ?? next;
    }
    if (sameContent(next, existing)) return existing;
    if (opts.dryRun) return next;
    return this.store.put(type.storageKey, next);
  }

  private admit(attributes: Parameters<ValidatingAdmission['validate']>[0]): void {
    for (const plugin of this.admission) plugin.validate(attributes);
  }

  private ownership(type: ResourceType, opts: WriteOptions): Parameters<typeof recordUpdate>[2] {
    return {
      manager: opts.fieldManager ?? 'unknown',
      apiVersion: groupVersion(type.group, type.version),
      subresource: opts.subresource,
      statusIsSubresource: type.subresources.includes('status'),
      schema: type.schema,
      now: nowSeconds(),
    };
  }

  checkNamespaceWritable(namespace: string): void {
    const ns = this.store.get('/namespaces', undefined, namespace);
    if (ns === undefined) throw namespaceNotFound(namespace);
    if (ns.metadata.deletionTimestamp !== undefined) {
      throw forbidden(`unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }
}

export function nowSeconds(): string {
  return new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function keyOf(o: KubeObject): string {
  return objectKey(o.metadata.namespace, o.metadata.name as string);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function encodeContinue(start: string, rv: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(rv), start }), 'utf8').toString('base64url');
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { start?: unknown };
    if (typeof parsed.start === 'string') return parsed.start;
  } catch {
    // fall through
  }
  throw new KubeError(400, 'BadRequest', 'continue key is not valid: invalid continue token');
}
