// The listen setting: host and port, and loopback when authentication is off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveListen } from '../../src/config/listen.js';
import { resolveNodeName } from '../../src/config/node-name.js';

test('":port" binds every interface with auth, loopback without', () => {
  assert.deepEqual(resolveListen(':8000', false), { host: '0.0.0.0', port: 8000 });
  assert.deepEqual(resolveListen(':8000', true), { host: '127.0.0.1', port: 8000 });
  assert.deepEqual(resolveListen(undefined, true), { host: '127.0.0.1', port: 9997 });
  assert.deepEqual(resolveListen(undefined, false), { host: '0.0.0.0', port: 9997 });
});

test('a named host is used as given, even with auth disabled', () => {
  assert.deepEqual(resolveListen('0.0.0.0:9000', true), { host: '0.0.0.0', port: 9000 });
  assert.deepEqual(resolveListen('[::1]:9000', false), { host: '::1', port: 9000 });
});

test('node name: nodeName, else the hostname, else none', () => {
  assert.deepEqual(resolveNodeName(' rack-1 ', () => 'host'), { name: 'rack-1', from: 'nodeName' });
  assert.deepEqual(resolveNodeName('', () => 'host-7'), { name: 'host-7', from: 'hostname' });
  assert.deepEqual(resolveNodeName('', () => ''), { name: '', from: 'none' });
});
