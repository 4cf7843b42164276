// Camera + its credentialsSecretRef → whether the credentials resolve, and what each node's credentials Secret holds:
// the user name and password (keys `<camera>.username`, `<camera>.password`) of the cameras that node records or is
// about to (status.node, status.handoverFrom), copied from the Secrets Cameras name. Only Secrets of type Opaque or
// kubernetes.io/basic-auth, and never the release's own (tokens, database, license) or the operator's copies.
import {
  CAMERA_ID_PATTERN, CameraReason, isCameraCredentialsSecretName, Labels, nodeCredentialsSecretName, type Camera, type RecorderNode,
} from '@vigil/crds';
import type { Secret } from '@vigil/kube';
import type { Settings } from '../config/settings.js';
import { MANAGED_BY, NODE_ANNOTATION } from './names.js';
import { ownerOf } from './owner.js';

/** The Secret types camera credentials may come from (the operator only watches these). */
export const CREDENTIAL_SECRET_TYPES = ['Opaque', 'kubernetes.io/basic-auth'] as const;

export type CredentialsCheck =
  | { ok: true; reason: typeof CameraReason.NoCredentialsRef | typeof CameraReason.SecretFound; message: string; username?: string; password?: string }
  | { ok: false; reason: typeof CameraReason.SecretMissing | typeof CameraReason.SecretKeyMissing | typeof CameraReason.SecretRefused; secret: string; message: string };

/** Secret names no credentialsSecretRef may name. */
export interface ReservedSecrets {
  has(name: string): boolean;
}

/** The settings' reservedSecrets, recorder.secrets, and the operator's own credentials Secrets (every node's). */
export function reservedSecrets(settings: Settings): ReservedSecrets {
  const own = settings.recorder.secrets;
  const named = new Set([...settings.reservedSecrets, own.apiTokens, own.clusterToken, own.license, own.database].filter((n): n is string => n !== undefined));
  return { has: (name) => named.has(name) || isCameraCredentialsSecretName(name) };
}

export function checkCredentials(cam: Camera, secretOf: (name: string) => Secret | undefined, reserved: ReservedSecrets): CredentialsCheck {
  const ref = cam.spec.credentialsSecretRef;
  if (ref === undefined) return { ok: true, reason: CameraReason.NoCredentialsRef, message: 'no credentialsSecretRef: the source needs no credentials or carries its own' };
  const namespace = cam.metadata.namespace ?? '';
  if (reserved.has(ref.name)) {
    return { ok: false, reason: CameraReason.SecretRefused, secret: ref.name, message: `Secret ${ref.name} is one of Vigil's own Secrets (tokens, database, license, the recorders' credentials copies) and is never given to the recorders: put the camera's user name and password into a Secret of their own` };
  }
  const secret = secretOf(ref.name);
  if (secret === undefined) {
    return { ok: false, reason: CameraReason.SecretMissing, secret: ref.name, message: `Secret ${ref.name} does not exist in namespace ${namespace} (or is not of type ${CREDENTIAL_SECRET_TYPES.join(' or ')}); the camera is not recorded until it does` };
  }
  const userKey = ref.usernameKey ?? 'username';
  const passKey = ref.passwordKey ?? 'password';
  const missing = [userKey, passKey].filter((k) => secret.data?.[k] === undefined);
  if (missing.length > 0) {
    return { ok: false, reason: CameraReason.SecretKeyMissing, secret: ref.name, message: `Secret ${ref.name} has no key ${missing.join(' and no key ')}; the camera is not recorded until it has` };
  }
  return { ok: true, reason: CameraReason.SecretFound, message: `the credentials come from Secret ${ref.name}`, username: secret.data?.[userKey], password: secret.data?.[passKey] };
}

/** A camera's user name and password as stored (base64), from its credentials check. */
export interface CopiedCredentials {
  username: string;
  password: string;
}

/** Every Camera whose credentials resolve (not being deleted, a valid camera id) and its user name and password. */
export function resolvedCredentials(cameras: Camera[], secretOf: (name: string) => Secret | undefined, reserved: ReservedSecrets): Array<{ camera: Camera; credentials: CopiedCredentials }> {
  const out: Array<{ camera: Camera; credentials: CopiedCredentials }> = [];
  for (const camera of cameras) {
    // A camera without a credentialsSecretRef has nothing to copy (checked first: the cheapest test of the loop).
    if (camera.spec.credentialsSecretRef === undefined) continue;
    if (camera.metadata.deletionTimestamp || !CAMERA_ID_PATTERN.test(camera.metadata.name ?? '')) continue;
    const check = checkCredentials(camera, secretOf, reserved);
    if (check.ok && check.username !== undefined && check.password !== undefined) out.push({ camera, credentials: { username: check.username, password: check.password } });
  }
  return out;
}

/** Two Cameras name the same credentials: the same Secret and keys, or neither names any. */
export function sameCredentialsRef(a: Camera, b: Camera): boolean {
  const x = a.spec.credentialsSecretRef;
  const y = b.spec.credentialsSecretRef;
  return x?.name === y?.name && x?.usernameKey === y?.usernameKey && x?.passwordKey === y?.passwordKey;
}

/**
 * Whether a change of one Camera (`old` → `obj`, either undefined when it came or went) can change what a node's
 * credentials Secret holds: its credentials reference, its deletion, or the nodes that record it. A recorder's report
 * or a phase changes none of them.
 */
export function credentialsInputsChanged(obj: Camera | undefined, old: Camera | undefined): boolean {
  if (obj === undefined || old === undefined) return true;
  if (obj.metadata.deletionTimestamp !== old.metadata.deletionTimestamp) return true;
  if (!sameCredentialsRef(obj, old)) return true;
  const a = recordingNodes(obj);
  const b = recordingNodes(old);
  return a.length !== b.length || a.some((n, i) => n !== b[i]);
}

/** The nodes that record a camera now: its node and the old side of a planned move. */
export function recordingNodes(camera: Camera): string[] {
  return [camera.status?.node, camera.status?.handoverFrom ?? undefined].filter((n): n is string => n !== undefined && n !== '');
}

/**
 * The data of each node's credentials Secret: every node in `nodes` gets an entry (empty when it records no camera
 * with credentials); a camera's credentials go to the nodes that record it (`recordingNodes`) and to those `alsoTo`
 * names (a move about to be written), nowhere else.
 */
export function credentialsByNode(
  cameras: Camera[], nodes: readonly string[], secretOf: (name: string) => Secret | undefined, reserved: ReservedSecrets, alsoTo: (camera: Camera) => readonly string[] = () => [],
): Map<string, Record<string, string>> {
  const byNode = new Map<string, Record<string, string>>(nodes.map((n) => [n, {}]));
  // In the cache's order: a Secret's data is a map (kube-apiserver sorts its keys, and the writer compares by key).
  // Sorting 5,000 cameras on every pass took a quarter of the operator's CPU while it assigned them.
  for (const { camera, credentials } of resolvedCredentials(cameras, secretOf, reserved)) {
    const id = camera.metadata.name ?? '';
    for (const node of new Set([...recordingNodes(camera), ...alsoTo(camera)])) {
      const data = byNode.get(node);
      if (data === undefined) continue; // no such RecorderNode (yet): nothing records there
      data[`${id}.username`] = credentials.username;
      data[`${id}.password`] = credentials.password;
    }
  }
  return byNode;
}

/** A node's credentials Secret, owned by its RecorderNode (it goes with the node, and with the release). */
export function desiredNodeCredentialsSecret(rn: RecorderNode, data: Record<string, string>, namespace: string): Secret & { apiVersion: string; kind: string } {
  const node = rn.metadata.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: nodeCredentialsSecretName(node),
      namespace,
      labels: { [Labels.name]: 'vigil', [Labels.component]: 'camera-credentials', [Labels.managedBy]: MANAGED_BY },
      annotations: { [NODE_ANNOTATION]: node },
      ownerReferences: [ownerOf(rn)],
    },
    type: 'Opaque',
    data,
  };
}
