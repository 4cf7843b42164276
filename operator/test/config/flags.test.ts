// Flags: defaults from kubernetes.md §7 and the environment, durations, and refusals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration, parseFlags, UsageError } from '../../src/config/flags.js';

test('defaults: :8080, every Node, 6 s / 4 s / 1 s, 15 s silence, 30 s to settle; namespace and identity from the Pod', () => {
  const f = parseFlags(['--settings', 's.yaml'], { POD_NAMESPACE: 'vigil', POD_NAME: 'vigil-operator-0' });
  assert.deepEqual(
    [f.listenHost, f.listenPort, f.nodeSelector, f.leaseDurationMs, f.renewDeadlineMs, f.retryPeriodMs, f.nodeSilenceMs, f.nodeSettleMs, f.namespace, f.identity],
    ['', 8080, '', 6000, 4000, 1000, 15000, 30000, 'vigil', 'vigil-operator-0'],
  );
  const g = parseFlags(['--settings=s.yaml', '--namespace', 'ns', '--identity=me', '--listen', '127.0.0.1:0', '--node-selector', 'vigil.io/recorder=true', '--node-silence', '1500ms', '--node-settle=10s'], {});
  assert.deepEqual([g.namespace, g.identity, g.listenHost, g.listenPort, g.nodeSelector, g.nodeSilenceMs, g.nodeSettleMs], ['ns', 'me', '127.0.0.1', 0, 'vigil.io/recorder=true', 1500, 10000]);
  assert.equal(parseFlags(['--settings', 's'], {}).namespace, undefined);
});

test('refusals: missing settings, unknown flags, bad durations, inconsistent timing', () => {
  assert.throws(() => parseFlags([], {}), UsageError);
  assert.throws(() => parseFlags(['--settings', 's', '--bogus', '1'], {}), /unknown argument/);
  assert.throws(() => parseFlags(['--settings', 's', '--lease-duration', 'soon'], {}), /not a duration/);
  assert.throws(() => parseFlags(['--settings', 's', '--node-settle', '0s'], {}), /--node-settle must be positive/);
  assert.throws(() => parseFlags(['--settings', 's', '--renew-deadline', '7s'], {}), /shorter than --lease-duration/);
  assert.throws(() => parseFlags(['--settings', 's', '--listen', 'nowhere'], {}), /HOST:PORT/);
  assert.equal(parseDuration('x', '2.5'), 2500);
  assert.equal(parseDuration('x', '1m'), 60000);
});
