// A Camera resource (+ its credentials, from the node's credentials Secret the operator writes) as the recorder's camera: settings
// resolved, credentials put into the URLs.
import { CAMERA_ID_PATTERN, type Camera as CameraResource } from '@vigil/crds';
import type { Camera } from '../cameras/camera.js';
import type { VigilConfig } from '../config/schema.js';

/** A camera's user name and password, in clear. */
export interface CameraCredentials {
  readonly username: string;
  readonly password: string;
}

export type ResourceCamera = { ok: true; camera: Camera } | { ok: false; reason: 'InvalidName' | 'CredentialsUnavailable'; message: string };

/** Puts user and password into an http(s)/rtsp(s) URL, replacing any it carried. */
function withCredentials(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}

export function cameraFromResource(resource: CameraResource, credentialsOf: (camera: string) => CameraCredentials | undefined, config: VigilConfig): ResourceCamera {
  const id = resource.metadata.name ?? '';
  if (!CAMERA_ID_PATTERN.test(id)) return { ok: false, reason: 'InvalidName', message: `the name must match ${CAMERA_ID_PATTERN.source} to be a camera id` };
  const spec = resource.spec;
  let source = spec.source;
  let snapuri = spec.snapuri;
  const ref = spec.credentialsSecretRef;
  if (ref !== undefined) {
    const credentials = credentialsOf(id);
    if (credentials === undefined) {
      return { ok: false, reason: 'CredentialsUnavailable', message: `the operator has not given this node the credentials of Secret ${ref.name} (the Camera's CredentialsReady condition says why)` };
    }
    const { username: plainUser, password: plainPassword } = credentials;
    source = withCredentials(source, plainUser, plainPassword);
    // The snapshot URL gets them too when it names none itself (the spec: credentials of snapuri or of source).
    if (snapuri !== undefined && new URL(snapuri).username === '') snapuri = withCredentials(snapuri, plainUser, plainPassword);
  }
  return {
    ok: true,
    camera: {
      id,
      source,
      ptz: spec.ptz ?? false,
      snapuri,
      onvif: spec.onvif,
      audio: spec.audio ?? 'auto',
      ingest: spec.ingest ?? config.ingest,
      rtspTransport: spec.rtspTransport ?? 'auto',
      record: {
        format: spec.record?.format ?? config.record.format,
        segmentSeconds: spec.record?.segmentSeconds ?? config.record.segment_seconds,
        maxAgeDays: spec.record?.retention?.maxAgeDays ?? config.record.retention.max_age_days,
      },
      origin: 'cluster',
    },
  };
}
