// A Camera resource becomes the recorder's camera: settings resolved against the configuration, credentials from the
// operator's copy of its Secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera as CameraResource } from '@vigil/crds';
import { cameraFromResource } from '../../src/cluster/camera-from-resource.js';
import { configSchema } from '../../src/config/schema.js';

const config = configSchema.parse({ record: { format: 'mp4', segment_seconds: 30, retention: { max_age_days: 7 } } });

function resource(name: string, spec: Partial<CameraResource['spec']>, status?: CameraResource['status']): CameraResource {
  return { apiVersion: 'vigil.io/v1alpha1', kind: 'Camera', metadata: { name, namespace: 'vigil' }, spec: { source: 'rtsp://192.0.2.10:554/stream1', ptz: false, audio: 'auto', ...spec }, ...(status === undefined ? {} : { status }) };
}

test('the camera\'s credentials go into the RTSP and snapshot URLs, URL-encoded; the resource’s own record settings win', () => {
  const credentials: Record<string, { username: string; password: string }> = { door: { username: 'admin', password: 'p@ss:w/rd' } };
  const got = cameraFromResource(
    resource('door', { credentialsSecretRef: { name: 'door-creds', usernameKey: 'user', passwordKey: 'pass' }, snapuri: 'http://192.0.2.10/snap.jpg', ptz: true, record: { segmentSeconds: 10 } }),
    (camera) => credentials[camera],
    config,
  );
  assert.ok(got.ok);
  assert.equal(got.camera.source, 'rtsp://admin:p%40ss%3Aw%2Frd@192.0.2.10:554/stream1');
  assert.equal(new URL(got.camera.source).password, 'p%40ss%3Aw%2Frd');
  assert.equal(got.camera.snapuri, 'http://admin:p%40ss%3Aw%2Frd@192.0.2.10/snap.jpg');
  assert.deepEqual(got.camera.record, { format: 'mp4', segmentSeconds: 10, maxAgeDays: 7 });
  assert.equal(got.camera.ptz, true);
  assert.equal(got.camera.origin, 'cluster');
});

test('credentials not (yet) given by the operator, or a name that is not a camera id, is reported and the camera is not recorded', () => {
  const missing = cameraFromResource(resource('door', { credentialsSecretRef: { name: 'nope', usernameKey: 'username', passwordKey: 'password' } }), () => undefined, config);
  assert.equal(missing.ok, false);
  assert.equal(missing.ok ? '' : missing.reason, 'CredentialsUnavailable');
  assert.match(missing.ok ? '' : missing.message, /Secret nope .*CredentialsReady condition/);
  const long = cameraFromResource(resource('x'.repeat(65), {}), () => undefined, config);
  assert.equal(long.ok ? '' : long.reason, 'InvalidName');
});
