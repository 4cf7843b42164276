// desiredPod, desiredService, desiredIngress and the names: kubernetes.md §3 field by field.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSettings } from '../../src/config/settings.js';
import { nodeHostLabel, recorderName } from '../../src/desired/names.js';
import { configMapHash, desiredPod, isPodReady, templateHashOf } from '../../src/desired/pod.js';
import { desiredIngress, desiredService } from '../../src/desired/service.js';
import { recorderNode } from '../support/objects.js';

const settings = parseSettings({
  recorder: { image: 'vigil/recorder:1.0', configMap: 'vigil-recorder', rbac: { clusterRole: 'vigil-vigil-recorder', role: 'vigil-recorder' }, secrets: { apiTokens: 'vigil-api-tokens', clusterToken: 'vigil-cluster-token', license: 'vigil-license', database: 'vigil-db' } },
  ingress: { hostTemplate: '{node}.vigil.example.com', className: 'nginx', tlsSecretName: 'vigil-tls' },
});
const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'vigil-recorder', uid: 'uid-cm', controller: true };
const ctx = { namespace: 'vigil', configHash: 'abc', owner };

test('names: vigil-recorder-<node>, shortened with a hash when too long or not a DNS label', () => {
  assert.equal(recorderName('node-1'), 'vigil-recorder-node-1');
  const long = recorderName('n'.repeat(80));
  assert.ok(long.length <= 63 && /^vigil-recorder-n+-[0-9a-f]{8}$/.test(long));
  assert.notEqual(recorderName('ip-10-0-0-1.ec2.internal'), recorderName('ip-10-0-0-1-ec2-internal'));
  assert.match(recorderName('ip-10-0-0-1.ec2.internal'), /^vigil-recorder-ip-10-0-0-1-ec2-internal-[0-9a-f]{8}$/);
  assert.equal(nodeHostLabel('node-1'), 'node-1');
});

test('the Pod: pinned, owned by the release, env with downward API, volumes, probes, grace period', () => {
  const pod = desiredPod(recorderNode('node-1'), settings, ctx);
  assert.equal(pod.metadata.name, 'vigil-recorder-node-1');
  assert.equal(pod.metadata.namespace, 'vigil');
  assert.deepEqual(pod.metadata.ownerReferences, [owner]);
  assert.equal(pod.metadata.annotations?.['vigil.io/node'], 'node-1');
  const spec = pod.spec!;
  assert.equal(spec.nodeName, 'node-1');
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  const c = spec.containers[0]!;
  assert.equal(c.image, 'vigil/recorder:1.0');
  const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
  assert.deepEqual(env.VIGIL_NODE_NAME, { fieldRef: { fieldPath: 'spec.nodeName' } });
  assert.deepEqual(env.VIGIL_CLUSTER_NAMESPACE, { fieldRef: { fieldPath: 'metadata.namespace' } });
  assert.equal(env.VIGIL_CLUSTER_ADVERTISE_URL, 'http://vigil-recorder-node-1.vigil.svc:9997');
  assert.equal(env.VIGIL_CLUSTER_PUBLIC_URL, 'https://node-1.vigil.example.com');
  assert.deepEqual(env.VIGIL_DATABASE_URL, { secretKeyRef: { name: 'vigil-db', key: 'url' } });
  const mounts = Object.fromEntries((c.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
  assert.deepEqual(mounts, {
    config: '/etc/vigil/config.yaml', 'api-tokens': '/etc/vigil/secrets/api-tokens', 'cluster-token': '/etc/vigil/secrets/cluster-token',
    recordings: '/var/lib/vigil/recordings', data: '/var/lib/vigil/data', tmp: '/tmp', license: '/etc/vigil/vigil.lic',
  });
  const vols = Object.fromEntries((spec.volumes ?? []).map((v) => [v.name, v]));
  assert.deepEqual(vols.recordings?.hostPath, { path: '/var/lib/vigil/recordings', type: 'DirectoryOrCreate' });
  assert.deepEqual(vols.data?.hostPath, { path: '/var/lib/vigil/data', type: 'DirectoryOrCreate' });
  assert.equal(vols.config?.configMap?.name, 'vigil-recorder');
  assert.equal(vols['cluster-token']?.secret?.secretName, 'vigil-cluster-token');
  assert.deepEqual(c.readinessProbe?.httpGet, { path: '/api/health/ready', port: 9997 });
  assert.deepEqual(c.livenessProbe?.httpGet, { path: '/api/health/live', port: 9997 });
});

test('the recorder runs as its non-root user; an init container creates the hostPath roots and hands them to that user', () => {
  const spec = desiredPod(recorderNode('node-1'), settings, ctx).spec!;
  const c = spec.containers[0]!;
  assert.deepEqual([c.securityContext?.runAsUser, c.securityContext?.runAsNonRoot, c.securityContext?.allowPrivilegeEscalation], [10001, true, false]);
  const init = spec.initContainers?.[0];
  assert.ok(init !== undefined);
  assert.equal(init.image, c.image, 'the same image');
  assert.equal(init.securityContext?.runAsUser, 0);
  assert.deepEqual(init.securityContext?.capabilities, { drop: ['ALL'], add: ['CHOWN'] }, 'root with CHOWN alone');
  // It sets its own command: the image's entrypoint is the recorder.
  assert.deepEqual(init.command?.slice(0, 2), ['sh', '-c']);
  assert.match(init.command?.[2] ?? '', /^mkdir -p \/var\/lib\/vigil\/recordings \/var\/lib\/vigil\/data && chown 10001:10001 \/var\/lib\/vigil\/recordings \/var\/lib\/vigil\/data$/);
  assert.deepEqual((init.volumeMounts ?? []).map((m) => [m.name, m.mountPath]), [['recordings', '/var/lib/vigil/recordings'], ['data', '/var/lib/vigil/data']]);
});

test('Pod Security: every container locked down as "restricted" asks, with resources; only the hostPaths need more', () => {
  const spec = desiredPod(recorderNode('node-1'), settings, ctx).spec!;
  assert.deepEqual(spec.securityContext?.seccompProfile, { type: 'RuntimeDefault' });
  for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false, c.name);
    assert.equal(c.securityContext?.readOnlyRootFilesystem, true, c.name);
    assert.deepEqual(c.securityContext?.capabilities?.drop, ['ALL'], c.name);
    assert.ok(c.resources?.requests?.memory !== undefined && c.resources.limits?.memory !== undefined, `${c.name} has resources`);
  }
  assert.deepEqual(spec.containers[0]?.resources, { requests: { cpu: '500m', memory: '256Mi' }, limits: { memory: '1Gi' } }, 'the default resources');
  const writable = (spec.volumes ?? []).filter((v) => v.hostPath !== undefined || v.emptyDir !== undefined).map((v) => v.name);
  assert.deepEqual(writable, ['recordings', 'data', 'tmp']);

  // With the host folders prepared by the administrator no container runs as root, and a missing folder stops the Pod.
  const prepared = parseSettings({ ...settings, recorder: { ...settings.recorder, hostPaths: { ...settings.recorder.hostPaths, prepare: false } } });
  const lean = desiredPod(recorderNode('node-1'), prepared, ctx).spec!;
  assert.equal(lean.initContainers, undefined);
  assert.deepEqual(lean.volumes?.find((v) => v.name === 'recordings')?.hostPath, { path: '/var/lib/vigil/recordings', type: 'Directory' });
});

test('the template hash changes with the ConfigMap content and the settings, not otherwise', () => {
  const rn = recorderNode('node-1');
  const h = templateHashOf(desiredPod(rn, settings, ctx));
  assert.equal(templateHashOf(desiredPod(rn, settings, ctx)), h);
  assert.notEqual(templateHashOf(desiredPod(rn, settings, { ...ctx, configHash: configMapHash({ 'config.yaml': 'x: 2' }) })), h);
  const other = parseSettings({ ...settings, recorder: { ...settings.recorder, image: 'vigil/recorder:1.1' } });
  assert.notEqual(templateHashOf(desiredPod(rn, other, ctx)), h);
  assert.equal(configMapHash({ a: '1', b: '2' }), configMapHash({ b: '2', a: '1' }));
});

test('the Service selects the node\'s Pod; the Ingress has one host per node', () => {
  const rn = recorderNode('node-1');
  const svc = desiredService(rn, settings, 'vigil', owner);
  assert.deepEqual(svc.metadata.ownerReferences, [owner]);
  const pod = desiredPod(rn, settings, ctx);
  for (const [k, v] of Object.entries(svc.spec?.selector ?? {})) assert.equal(pod.metadata.labels?.[k], v);
  assert.deepEqual(svc.spec?.ports?.map((p) => [p.name, p.port]), [['api', 9997], ['metrics', 9998]]);
  const ing = desiredIngress(rn, settings, 'vigil', owner)!;
  assert.deepEqual(ing.metadata.ownerReferences, [owner]);
  assert.equal(ing.spec?.rules?.[0]?.host, 'node-1.vigil.example.com');
  assert.equal(ing.spec?.ingressClassName, 'nginx');
  assert.deepEqual(ing.spec?.tls, [{ hosts: ['node-1.vigil.example.com'], secretName: 'vigil-tls' }]);
  assert.equal(desiredIngress(rn, parseSettings({ recorder: settings.recorder }), 'vigil', owner), undefined);
});

test('isPodReady: the Ready condition, and never while deleting', () => {
  const ready = { metadata: { name: 'p' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  assert.equal(isPodReady(ready), true);
  assert.equal(isPodReady({ ...ready, metadata: { name: 'p', deletionTimestamp: '2026-01-01T00:00:00Z' } }), false);
  assert.equal(isPodReady(undefined), false);
});
