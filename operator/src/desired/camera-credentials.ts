// Camera + its credentialsSecretRef → whether the credentials resolve, and the one Secret the recorders read: the user
// name and password of every Camera (keys `<camera>.username`, `<camera>.password`), copied from the Secrets Cameras name.
// Only Secrets of type Opaque or kubernetes.io/basic-auth, and never the release's own (tokens, database, license).
import { CAMERA_CREDENTIALS_SECRET, CAMERA_ID_PATTERN, CameraReason, Labels, type Camera, type OwnerReference } from '@vigil/crds';
import type { Secret } from '@vigil/kube';
import type { Settings } from '../config/settings.js';
import { MANAGED_BY } from './names.js';

/** The Secret types camera credentials may come from (the operator only watches these). */
export const CREDENTIAL_SECRET_TYPES = ['Opaque', 'kubernetes.io/basic-auth'] as const;

export type CredentialsCheck =
  | { ok: true; reason: typeof CameraReason.NoCredentialsRef | typeof CameraReason.SecretFound; message: string; username?: string; password?: string }
  | { ok: false; reason: typeof CameraReason.SecretMissing | typeof CameraReason.SecretKeyMissing | typeof CameraReason.SecretRefused; secret: string; message: string };

/** Secrets no credentialsSecretRef may name: the settings' reservedSecrets, recorder.secrets, and the copy itself. */
export function reservedSecrets(settings: Settings): ReadonlySet<string> {
  const own = settings.recorder.secrets;
  return new Set([...settings.reservedSecrets, own.apiTokens, own.clusterToken, own.license, own.database, CAMERA_CREDENTIALS_SECRET].filter((n): n is string => n !== undefined));
}

export function checkCredentials(cam: Camera, secretOf: (name: string) => Secret | undefined, reserved: ReadonlySet<string>): CredentialsCheck {
  const ref = cam.spec.credentialsSecretRef;
  if (ref === undefined) return { ok: true, reason: CameraReason.NoCredentialsRef, message: 'no credentialsSecretRef: the source needs no credentials or carries its own' };
  const namespace = cam.metadata.namespace ?? '';
  if (reserved.has(ref.name)) {
    return { ok: false, reason: CameraReason.SecretRefused, secret: ref.name, message: `Secret ${ref.name} is one of Vigil's own Secrets (tokens, database, license) and is never given to the recorders: put the camera's user name and password into a Secret of their own` };
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

/** The data of the credentials Secret (base64 values, as copied): one user name and password per Camera that has them. */
export function credentialsData(cameras: Camera[], secretOf: (name: string) => Secret | undefined, reserved: ReadonlySet<string>): Record<string, string> {
  const data: Record<string, string> = {};
  for (const cam of [...cameras].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
    const id = cam.metadata.name ?? '';
    if (cam.metadata.deletionTimestamp || !CAMERA_ID_PATTERN.test(id)) continue;
    const check = checkCredentials(cam, secretOf, reserved);
    if (!check.ok || check.username === undefined || check.password === undefined) continue;
    data[`${id}.username`] = check.username;
    data[`${id}.password`] = check.password;
  }
  return data;
}

export function desiredCredentialsSecret(data: Record<string, string>, namespace: string, owner: OwnerReference): Secret & { apiVersion: string; kind: string } {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: CAMERA_CREDENTIALS_SECRET, namespace, labels: { [Labels.name]: 'vigil', [Labels.component]: 'camera-credentials', [Labels.managedBy]: MANAGED_BY }, ownerReferences: [owner] },
    type: 'Opaque',
    data,
  };
}
