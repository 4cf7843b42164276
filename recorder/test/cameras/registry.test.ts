// The registry merges its sources by priority, reports only differences, and remembers passwords for log scrubbing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Camera } from '../../src/cameras/camera.js';
import { CameraRegistry } from '../../src/cameras/registry.js';
import { configCamera } from '../support/fakes.js';

function cam(id: string, source = `rtsp://127.0.0.1/${id}`): Camera {
  return configCamera({ id, source });
}

test('adds, updates and removals are reported once each; an identical republish reports nothing', () => {
  const registry = new CameraRegistry();
  const events: string[] = [];
  registry.listen({ onAdded: (c) => events.push(`+${c.id}`), onUpdated: (c) => events.push(`~${c.id}`), onRemoved: (c) => events.push(`-${c.id}`) });
  assert.deepEqual(registry.publish('file', [cam('a'), cam('b')]), { added: ['a', 'b'], updated: [], removed: [] });
  assert.deepEqual(registry.publish('file', [cam('a'), cam('b')]), { added: [], updated: [], removed: [] });
  assert.deepEqual(registry.publish('file', [cam('a', 'rtsp://127.0.0.1/a2'), cam('c')]), { added: ['c'], updated: ['a'], removed: ['b'] });
  assert.deepEqual(events.sort(), ['+a', '+b', '+c', '-b', '~a'].sort());
});

test('a camera named by several sources is the one of the highest-priority source, whatever order they publish in', () => {
  const registry = new CameraRegistry();
  registry.publish('cluster', [cam('door', 'rtsp://cluster/door')]);
  registry.publish('database', [cam('door', 'rtsp://database/door')]);
  assert.equal(registry.get('door')?.source, 'rtsp://database/door', 'database over cluster');
  registry.publish('file', [cam('door', 'rtsp://file/door')]);
  assert.equal(registry.get('door')?.source, 'rtsp://file/door', 'the configuration file over both');
  registry.publish('file', []);
  assert.equal(registry.get('door')?.source, 'rtsp://database/door', 'the next source takes over when the file drops it');
  registry.publish('database', []);
  assert.equal(registry.get('door')?.source, 'rtsp://cluster/door');
});

test('passwords of every camera ever published stay known for log scrubbing', () => {
  const registry = new CameraRegistry();
  registry.publish('file', [configCamera({ id: 'a', source: 'rtsp://u:Pass-1@h/a', snapuri: 'http://v:Pass-2@h/snap.jpg' })]);
  registry.publish('file', []);
  assert.deepEqual([...registry.secrets()].sort(), ['Pass-1', 'Pass-2']);
});
