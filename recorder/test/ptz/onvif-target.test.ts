// Where PTZ commands go: the `onvif` key, else the RTSP host on port 80; credentials come from source only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onvifTarget } from '../../src/ptz/onvif-target.js';
import { PtzNoCredentialsError } from '../../src/ptz/ptz-errors.js';
import { cameraSchema } from '../../src/config/schema.js';
import { configCamera } from '../support/fakes.js';

test('the device address defaults to the RTSP host on port 80 and follows the onvif key', () => {
  const plain = onvifTarget(configCamera({ id: 'a', source: 'rtsp://admin:p%40ss@cam.example:8554/live', ptz: true }));
  assert.deepEqual(
    { hostname: plain.hostname, port: plain.port, path: plain.path, useSecure: plain.useSecure, username: plain.username, password: plain.password },
    { hostname: 'cam.example', port: 80, path: '/onvif/device_service', useSecure: false, username: 'admin', password: 'p@ss' },
  );
  const keyed = onvifTarget(configCamera({ id: 'b', source: 'rtsp://admin:pw@10.0.0.5/live', ptz: true, onvif: 'https://10.0.0.6:8443/onvif/device' }));
  assert.deepEqual([keyed.hostname, keyed.port, keyed.path, keyed.useSecure], ['10.0.0.6', 8443, '/onvif/device', true]);
  const hostOnly = onvifTarget(configCamera({ id: 'c', source: 'rtsp://admin:pw@[fd00::5]/live', ptz: true, onvif: 'http://[fd00::6]:8080' }));
  assert.deepEqual([hostOnly.hostname, hostOnly.port, hostOnly.path], ['fd00::6', 8080, '/onvif/device_service']);
  assert.ok(!hostOnly.address.includes('pw'));
  assert.throws(() => onvifTarget(configCamera({ id: 'd', source: 'rtsp://10.0.0.5/live', ptz: true })), PtzNoCredentialsError);
});

test('the onvif key must be an http(s) URL without credentials', () => {
  const base = { id: 'a', source: 'rtsp://h/x' };
  assert.equal(cameraSchema.safeParse({ ...base, onvif: 'http://127.0.0.1:8080' }).success, true);
  assert.equal(cameraSchema.safeParse({ ...base, onvif: 'http://u:p@127.0.0.1:8080' }).success, false);
  assert.equal(cameraSchema.safeParse({ ...base, onvif: 'rtsp://127.0.0.1' }).success, false);
  assert.equal(cameraSchema.safeParse({ ...base, onvif: '127.0.0.1:8080' }).success, false);
});
