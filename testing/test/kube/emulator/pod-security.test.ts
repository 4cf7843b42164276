// Pod Security admission from namespace labels, driven with the real kubectl: enforce refuses with kube-apiserver's message, warn and pod templates warn, bad labels are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

/** A Pod like Vigil's recorder: a hostPath volume and no security context. */
const HOSTPATH_POD = (namespace: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name: 'recorder', namespace },
  spec: {
    containers: [{ name: 'recorder', image: 'vigil/recorder:1', volumeMounts: [{ name: 'data', mountPath: '/var/lib/vigil' }] }],
    volumes: [{ name: 'data', hostPath: { path: '/var/lib/vigil', type: 'DirectoryOrCreate' } }],
  },
});

/** What `restricted` asks of every container, written out. */
const RESTRICTED_POD = (namespace: string, name = 'tight') => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace },
  spec: {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [{ name: 'app', image: 'busybox:1', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    volumes: [{ name: 'scratch', emptyDir: {} }],
  },
});

async function namespace(f: EmulatorFixture, name: string, labels: string[]): Promise<void> {
  ok(await f.kubectl(['create', 'namespace', name]), `create ns ${name}`);
  if (labels.length > 0) ok(await f.kubectl(['label', 'namespace', name, ...labels]), `label ns ${name}`);
}

test('enforce=baseline refuses a hostPath Pod with the API server\'s message; privileged and unlabelled namespaces accept it', async (t) => {
  const f = await startEmulatorFixture(t);
  await namespace(f, 'strict', ['pod-security.kubernetes.io/enforce=baseline']);
  const refused = await f.kubectl(['apply', '-f', '-'], { input: HOSTPATH_POD('strict') });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /Error from server \(Forbidden\): error when creating "STDIN": pods "recorder" is forbidden: violates PodSecurity "baseline:latest": hostPath volumes \(volume "data"\)\n/);
  assert.equal((await f.kubectl(['get', 'pod', 'recorder', '-n', 'strict'])).code, 1, 'nothing was stored');

  // A pinned version reads the same way, and the Status carries the real reason and details.
  ok(await f.kubectl(['label', 'namespace', 'strict', 'pod-security.kubernetes.io/enforce-version=v1.30']), 'pin version');
  const answer = await f.request('POST', '/api/v1/namespaces/strict/pods', JSON.parse(HOSTPATH_POD('strict')));
  assert.equal(answer.status, 403);
  assert.deepEqual(answer.body, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: 'pods "recorder" is forbidden: violates PodSecurity "baseline:v1.30": hostPath volumes (volume "data")',
    details: { name: 'recorder', kind: 'pods' },
  });

  await namespace(f, 'open', ['pod-security.kubernetes.io/enforce=privileged']);
  await namespace(f, 'plain', []);
  for (const ns of ['open', 'plain']) {
    const created = await f.kubectl(['apply', '-f', '-'], { input: HOSTPATH_POD(ns) });
    assert.equal(created.code, 0, created.stderr);
    assert.doesNotMatch(created.stderr, /Warning/);
  }
  // kube-system is not exempt unless labelled: the default configuration exempts no namespace.
  ok(await f.kubectl(['label', 'namespace', 'kube-system', 'pod-security.kubernetes.io/enforce=baseline']), 'label kube-system');
  assert.match((await f.kubectl(['apply', '-f', '-'], { input: HOSTPATH_POD('kube-system') })).stderr, /violates PodSecurity "baseline:latest"/);
});

test('enforce=restricted lists every check a plain Pod fails, in the plugin\'s order, and accepts a Pod written for it', async (t) => {
  const f = await startEmulatorFixture(t);
  await namespace(f, 'tight', ['pod-security.kubernetes.io/enforce=restricted']);
  const plain = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'plain', namespace: 'tight' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }], initContainers: [{ name: 'init', image: 'busybox:1', securityContext: { runAsUser: 0, capabilities: { add: ['NET_ADMIN'] } } }] } });
  const refused = await f.kubectl(['apply', '-f', '-'], { input: plain });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(escape('pods "plain" is forbidden: violates PodSecurity "restricted:latest": '
    + 'allowPrivilegeEscalation != false (containers "init", "c" must set securityContext.allowPrivilegeEscalation=false), '
    + 'unrestricted capabilities (containers "init", "c" must set securityContext.capabilities.drop=["ALL"]; container "init" must not include "NET_ADMIN" in securityContext.capabilities.add), '
    + 'runAsNonRoot != true (pod or containers "init", "c" must set securityContext.runAsNonRoot=true), '
    + 'runAsUser=0 (container "init" must not set runAsUser=0), '
    + 'seccompProfile (pod or containers "init", "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')));

  const noSeccomp = JSON.parse(RESTRICTED_POD('tight', 'no-seccomp')) as { spec: { securityContext: Record<string, unknown> } };
  delete noSeccomp.spec.securityContext.seccompProfile;
  const missing = await f.kubectl(['apply', '-f', '-'], { input: JSON.stringify(noSeccomp) });
  assert.match(missing.stderr, /pods "no-seccomp" is forbidden: violates PodSecurity "restricted:latest": seccompProfile \(pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"\)\n/);

  const accepted = await f.kubectl(['apply', '-f', '-'], { input: RESTRICTED_POD('tight') });
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, /pod\/tight created/);
});

test('warn prints kubectl\'s Warning and stores the Pod; pod templates only warn; bad labels are refused; tightening warns about existing Pods', async (t) => {
  const f = await startEmulatorFixture(t);
  await namespace(f, 'watched', ['pod-security.kubernetes.io/warn=baseline']);
  const warned = await f.kubectl(['apply', '-f', '-'], { input: HOSTPATH_POD('watched') });
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /^Warning: would violate PodSecurity "baseline:latest": hostPath volumes \(volume "data"\)$/m);
  assert.match(warned.stdout, /pod\/recorder created/);
  // Only a new image (or other containers) makes the plugin look at a Pod again.
  const relabelled = await f.kubectl(['label', 'pod', 'recorder', '-n', 'watched', 'role=x']);
  assert.equal(relabelled.code, 0, relabelled.stderr);
  assert.doesNotMatch(relabelled.stderr, /Warning/);
  const reimaged = await f.kubectl(['set', 'image', 'pod/recorder', '-n', 'watched', 'recorder=vigil/recorder:2']);
  assert.equal(reimaged.code, 0, reimaged.stderr);
  assert.match(reimaged.stderr, /^Warning: would violate PodSecurity "baseline:latest": hostPath volumes \(volume "data"\)$/m);

  // A Deployment in an enforcing namespace is stored with a warning (enforce defaults warn to its level).
  await namespace(f, 'strict', ['pod-security.kubernetes.io/enforce=baseline']);
  const deployment = JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'strict' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { hostNetwork: true, containers: [{ name: 'web', image: 'nginx:1', securityContext: { privileged: true } }] } } },
  });
  const templ = await f.kubectl(['apply', '-f', '-'], { input: deployment });
  assert.equal(templ.code, 0, templ.stderr);
  assert.match(templ.stderr, /^Warning: would violate PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\), privileged \(container "web" must not set securityContext.privileged=true\)$/m);

  const badLevel = await f.kubectl(['label', 'namespace', 'watched', 'pod-security.kubernetes.io/enforce=strict']);
  assert.equal(badLevel.code, 1);
  assert.match(badLevel.stderr, /The Namespace "watched" is invalid: metadata.labels\[pod-security.kubernetes.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/);
  const badCreate = await f.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'odd', labels: { 'pod-security.kubernetes.io/warn-version': '1.30' } } }) });
  assert.match(badCreate.stderr, /metadata.labels\[pod-security.kubernetes.io\/warn-version\]: Invalid value: "1.30": must be "latest" or "v1.x"/);

  // Enforcing where a violating Pod already runs: allowed, with the plugin's warnings naming it.
  const tightened = await f.kubectl(['label', 'namespace', 'watched', 'pod-security.kubernetes.io/enforce=baseline']);
  assert.equal(tightened.code, 0, tightened.stderr);
  assert.match(tightened.stderr, /Warning: existing pods in namespace "watched" violate the new PodSecurity enforce level "baseline:latest"\nWarning: recorder: hostPath volumes\n/);
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
