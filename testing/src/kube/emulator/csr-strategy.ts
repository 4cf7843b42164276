// What the API server itself writes into a CertificateSigningRequest (pkg/registry/certificates/certificates/strategy.go):
// the requester's identity from the authenticated caller on create, a spec no update can change, and which part of
// the status each path may write — the object (nothing), /status (not the approval), /approval (only the approval).
import type { KubeObject, UserInfo } from './types.js';
import { arr, rec } from './validation-common.js';

const APPROVAL_TYPES = new Set(['Approved', 'Denied']);

/** PrepareForCreate: spec.username, uid, groups and extra are the caller's, whatever the body said; no status. */
export function prepareCsrCreate(o: KubeObject, user: UserInfo | undefined): void {
  const spec = rec(o.spec);
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (user !== undefined) {
    spec.username = user.username;
    if (user.uid !== '') spec.uid = user.uid;
    if (user.groups.length > 0) spec.groups = [...user.groups];
  }
  o.spec = spec;
  delete o.status;
}

function conditions(o: KubeObject | undefined): Array<Record<string, unknown>> {
  return arr(rec(o?.status).conditions).map(rec);
}

/** PrepareForUpdate of each path, then populateConditionTimestamps. */
export function prepareCsrUpdate(next: KubeObject, existing: KubeObject, subresource: string | undefined, now: string): void {
  next.spec = existing.spec;
  if (subresource === undefined) {
    if (existing.status === undefined) delete next.status;
    else next.status = existing.status;
    return;
  }
  const incoming = conditions(next);
  const old = conditions(existing);
  let merged: Array<Record<string, unknown>>;
  if (subresource === 'approval') {
    // Only the Approved/Denied conditions come from the request; the certificate and other conditions stay.
    merged = [...old.filter((c) => !APPROVAL_TYPES.has(String(c.type))), ...incoming.filter((c) => APPROVAL_TYPES.has(String(c.type)))];
    next.status = { ...rec(existing.status) };
  } else {
    // /status: everything but the approval, which stays as it was.
    merged = [...incoming.filter((c) => !APPROVAL_TYPES.has(String(c.type))), ...old.filter((c) => APPROVAL_TYPES.has(String(c.type)))];
    next.status = { ...rec(next.status) };
  }
  const status = rec(next.status);
  for (const c of merged) {
    const before = old.find((o) => o.type === c.type);
    c.lastUpdateTime ??= now;
    c.lastTransitionTime ??= before !== undefined && before.status === c.status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : now;
  }
  if (merged.length > 0) status.conditions = merged;
  else delete status.conditions;
  next.status = status;
}

/** Whether the CSR carries an Approved condition (a certificate may only follow one). */
export function isApproved(o: KubeObject): boolean {
  return conditions(o).some((c) => c.type === 'Approved' && c.status === 'True');
}
