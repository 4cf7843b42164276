// Decodes Kubernetes protobuf request bodies ("k8s\0" + runtime.Unknown) for the kinds typed Go clients send that way (helm's release Secrets).
import { badRequest, unsupportedMediaType } from './status-errors.js';

type FieldKind = 'string' | 'bytes' | 'int' | 'bool' | 'time' | 'microTime' | 'stringMap' | 'bytesMap' | 'strings' | { message: MessageSpec; repeated?: boolean };
type MessageSpec = Record<number, [string, FieldKind]>;

const OWNER_REFERENCE: MessageSpec = { 1: ['kind', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'], 6: ['controller', 'bool'], 7: ['blockOwnerDeletion', 'bool'] };
const OBJECT_META: MessageSpec = {
  1: ['name', 'string'], 2: ['generateName', 'string'], 3: ['namespace', 'string'], 5: ['uid', 'string'], 6: ['resourceVersion', 'string'],
  7: ['generation', 'int'], 8: ['creationTimestamp', 'time'], 9: ['deletionTimestamp', 'time'], 10: ['deletionGracePeriodSeconds', 'int'],
  11: ['labels', 'stringMap'], 12: ['annotations', 'stringMap'], 13: ['ownerReferences', { message: OWNER_REFERENCE, repeated: true }], 14: ['finalizers', 'strings'],
};
const POLICY_RULE: MessageSpec = { 1: ['verbs', 'strings'], 2: ['apiGroups', 'strings'], 3: ['resources', 'strings'], 4: ['resourceNames', 'strings'], 5: ['nonResourceURLs', 'strings'] };
const LABEL_SELECTOR: MessageSpec = { 1: ['matchLabels', 'stringMap'], 2: ['matchExpressions', { message: { 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['values', 'strings'] }, repeated: true }] };
const BINDING: MessageSpec = {
  1: ['metadata', { message: OBJECT_META }],
  2: ['subjects', { message: { 1: ['kind', 'string'], 2: ['apiGroup', 'string'], 3: ['name', 'string'], 4: ['namespace', 'string'] }, repeated: true }],
  3: ['roleRef', { message: { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] } }],
};
const OBJECT_REFERENCE: MessageSpec = { 1: ['kind', 'string'], 2: ['namespace', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'], 5: ['apiVersion', 'string'], 6: ['resourceVersion', 'string'], 7: ['fieldPath', 'string'] };

/** The kinds kubectl's `create <kind>` commands and helm's release storage send as protobuf (field numbers of k8s.io/api generated.proto). */
const KINDS: Record<string, MessageSpec> = {
  'v1/Namespace': { 1: ['metadata', { message: OBJECT_META }], 2: ['spec', { message: { 1: ['finalizers', 'strings'] } }] },
  'v1/ServiceAccount': { 1: ['metadata', { message: OBJECT_META }], 2: ['secrets', { message: OBJECT_REFERENCE, repeated: true }], 3: ['imagePullSecrets', { message: { 1: ['name', 'string'] }, repeated: true }], 4: ['automountServiceAccountToken', 'bool'] },
  'authentication.k8s.io/v1/TokenRequest': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: { 1: ['audiences', 'strings'], 4: ['expirationSeconds', 'int'], 3: ['boundObjectRef', { message: { 1: ['kind', 'string'], 2: ['apiVersion', 'string'], 3: ['name', 'string'], 4: ['uid', 'string'] } }] } }],
  },
  // kubectl certificate approve|deny sends the CSR it read back to /approval.
  'certificates.k8s.io/v1/CertificateSigningRequest': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: {
      1: ['request', 'bytes'], 2: ['username', 'string'], 3: ['uid', 'string'], 4: ['groups', 'strings'], 5: ['usages', 'strings'], 7: ['signerName', 'string'], 8: ['expirationSeconds', 'int'],
    } }],
    3: ['status', { message: {
      1: ['conditions', { message: { 1: ['type', 'string'], 6: ['status', 'string'], 2: ['reason', 'string'], 3: ['message', 'string'], 4: ['lastUpdateTime', 'time'], 5: ['lastTransitionTime', 'time'] }, repeated: true }],
      2: ['certificate', 'bytes'],
    } }],
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: ['metadata', { message: OBJECT_META }], 2: ['rules', { message: POLICY_RULE, repeated: true }] },
  'rbac.authorization.k8s.io/v1/ClusterRole': { 1: ['metadata', { message: OBJECT_META }], 2: ['rules', { message: POLICY_RULE, repeated: true }], 3: ['aggregationRule', { message: { 1: ['clusterRoleSelectors', { message: LABEL_SELECTOR, repeated: true }] } }] },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: {
      1: ['resourceAttributes', { message: { 1: ['namespace', 'string'], 2: ['verb', 'string'], 3: ['group', 'string'], 4: ['version', 'string'], 5: ['resource', 'string'], 6: ['subresource', 'string'], 7: ['name', 'string'] } }],
      2: ['nonResourceAttributes', { message: { 1: ['path', 'string'], 2: ['verb', 'string'] } }],
    } }],
  },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: ['metadata', { message: OBJECT_META }] },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': { 1: ['metadata', { message: OBJECT_META }], 2: ['spec', { message: { 1: ['namespace', 'string'] } }] },
  'coordination.k8s.io/v1/Lease': {
    1: ['metadata', { message: OBJECT_META }],
    2: ['spec', { message: { 1: ['holderIdentity', 'string'], 2: ['leaseDurationSeconds', 'int'], 3: ['acquireTime', 'microTime'], 4: ['renewTime', 'microTime'], 5: ['leaseTransitions', 'int'], 6: ['strategy', 'string'], 7: ['preferredHolder', 'string'] } }],
  },
  'v1/Secret': { 1: ['metadata', { message: OBJECT_META }], 2: ['data', 'bytesMap'], 3: ['type', 'string'], 4: ['stringData', 'stringMap'], 5: ['immutable', 'bool'] },
  'v1/ConfigMap': { 1: ['metadata', { message: OBJECT_META }], 2: ['data', 'stringMap'], 3: ['binaryData', 'bytesMap'], 4: ['immutable', 'bool'] },
  'v1/DeleteOptions': { 1: ['gracePeriodSeconds', 'int'], 2: ['preconditions', { message: { 1: ['uid', 'string'], 2: ['resourceVersion', 'string'] } }], 3: ['orphanDependents', 'bool'], 4: ['propagationPolicy', 'string'], 5: ['dryRun', 'strings'] },
  'meta.k8s.io/v1/DeleteOptions': { 1: ['gracePeriodSeconds', 'int'], 2: ['preconditions', { message: { 1: ['uid', 'string'], 2: ['resourceVersion', 'string'] } }], 3: ['orphanDependents', 'bool'], 4: ['propagationPolicy', 'string'], 5: ['dryRun', 'strings'] },
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly end = buf.length) {}
  get done(): boolean {
    return this.pos >= this.end;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw badRequest('protobuf: truncated varint');
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.end) throw badRequest('protobuf: truncated field');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.bytes();
    else if (wireType === 5) this.pos += 4;
    else throw badRequest(`protobuf: unsupported wire type ${wireType}`);
  }
}

function decodeMessage(buf: Buffer, spec: MessageSpec): Record<string, unknown> {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = Number(r.varint());
    const field = tag >>> 3;
    const wire = tag & 7;
    const entry = spec[field];
    if (entry === undefined) {
      r.skip(wire);
      continue;
    }
    const [name, kind] = entry;
    if (kind === 'int') out[name] = Number(BigInt.asIntN(64, r.varint()));
    else if (kind === 'bool') out[name] = r.varint() !== 0n;
    else if (kind === 'string') out[name] = r.bytes().toString('utf8');
    else if (kind === 'bytes') out[name] = r.bytes().toString('base64');
    else if (kind === 'strings') out[name] = [...((out[name] as string[] | undefined) ?? []), r.bytes().toString('utf8')];
    else if (kind === 'time' || kind === 'microTime') {
      const t = decodeMessage(r.bytes(), { 1: ['seconds', 'int'], 2: ['nanos', 'int'] });
      const iso = new Date(Number(t.seconds ?? 0) * 1000).toISOString();
      out[name] = kind === 'time' ? iso.replace('.000Z', 'Z') : iso.replace('.000Z', `.${String(Math.floor(Number(t.nanos ?? 0) / 1000)).padStart(6, '0')}Z`);
    } else if (kind === 'stringMap' || kind === 'bytesMap') {
      const e = decodeMessage(r.bytes(), { 1: ['key', 'string'], 2: ['value', kind === 'stringMap' ? 'string' : 'bytes'] });
      const map = (out[name] as Record<string, unknown> | undefined) ?? {};
      map[String(e.key ?? '')] = e.value ?? '';
      out[name] = map;
    } else {
      const value = decodeMessage(r.bytes(), kind.message);
      if (kind.repeated) out[name] = [...((out[name] as unknown[] | undefined) ?? []), value];
      else out[name] = value;
    }
  }
  return out;
}

/** Decodes a protobuf-encoded object into its JSON form; 415 for kinds the emulator cannot read as protobuf. */
export function decodeProtobufObject(raw: Buffer): Record<string, unknown> {
  if (raw.length < 4 || !raw.subarray(0, 4).equals(MAGIC)) throw badRequest('protobuf: missing the k8s magic prefix');
  const unknown = decodeMessage(raw.subarray(4), { 1: ['typeMeta', { message: { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] } }], 2: ['raw', 'bytes'] });
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const key = `${typeMeta.apiVersion ?? ''}/${typeMeta.kind ?? ''}`;
  const spec = KINDS[key];
  if (spec === undefined) throw unsupportedMediaType(`application/vnd.kubernetes.protobuf (${key})`);
  const body = decodeMessage(Buffer.from(String(unknown.raw ?? ''), 'base64'), spec);
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...body };
}
