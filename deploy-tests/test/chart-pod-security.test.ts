// Pod Security: everything the chart and the operator run meets the "restricted" level, except what the recorder Pods
// cannot do without — their hostPath volumes (and, with recorder.hostPaths.prepare, the init container that hands the
// host folders to the recorder's user). Checked by kube-apiserver's own Pod Security admission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseSettings } from '@vigil/operator/dist/src/config/settings.js';
import { desiredPod } from '@vigil/operator/dist/src/desired/pod.js';
import { ok, startKubeCluster, type KubeCluster } from '@vigil/testing/kube/kube-cluster';
import { configMapText, find, renderChart, type KubeObject } from './support/chart.js';

type PodTemplate = { spec: { template: { spec: Record<string, unknown> & { volumes?: unknown[] } }; volumeClaimTemplates?: Array<{ metadata: { name: string } }> } };

/** The Pod a workload controller makes from the template (a StatefulSet adds a claim per volumeClaimTemplate). */
function podSpecOf(workload: PodTemplate, name: string): Record<string, unknown> {
  const spec = workload.spec.template.spec;
  const claims = (workload.spec.volumeClaimTemplates ?? []).map((c) => ({ name: c.metadata.name, persistentVolumeClaim: { claimName: `${c.metadata.name}-${name}-0` } }));
  return { ...spec, volumes: [...(spec.volumes ?? []), ...claims] };
}

async function namespace(cluster: KubeCluster, name: string, level: string): Promise<void> {
  await cluster.createNamespace(name, { 'pod-security.kubernetes.io/enforce': level });
}

/** Creates `spec` as a Pod in `ns`; the kubectl result says whether admission let it in. */
function createPod(cluster: KubeCluster, ns: string, name: string, spec: Record<string, unknown>) {
  const { serviceAccountName: _sa, ...rest } = spec; // the ServiceAccount is no Pod Security matter
  return cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: rest }) });
}

function recorderPod(objects: KubeObject[], prepare: boolean) {
  const raw = parse(configMapText(find(objects, 'ConfigMap', 'vigil-operator-settings'), 'settings.yaml')) as { recorder: { hostPaths: Record<string, unknown> } };
  raw.recorder.hostPaths.prepare = prepare;
  const rn = { apiVersion: 'vigil.io/v1alpha1', kind: 'RecorderNode', metadata: { name: 'node-a', uid: 'u' }, spec: { nodeName: 'node-a', member: true } };
  return desiredPod(rn, parseSettings(raw), { namespace: 'x', configHash: '', owner: { apiVersion: 'v1', kind: 'ConfigMap', name: 'vigil-recorder', uid: 'u' } });
}

test('the operator and PostgreSQL meet "restricted"; the recorder Pod breaks only hostPath (and, when it prepares the folders, its init container)', async (t) => {
  const cluster = await startKubeCluster(t);
  const objects = await renderChart(t, { postgresql: { enabled: true } });
  await namespace(cluster, 'restricted', 'restricted');
  await namespace(cluster, 'baseline', 'baseline');
  await namespace(cluster, 'privileged', 'privileged');

  for (const [kind, name] of [['Deployment', 'vigil-operator'], ['StatefulSet', 'vigil-postgresql']] as const) {
    const created = await createPod(cluster, 'restricted', name, podSpecOf(find(objects, kind, name) as unknown as PodTemplate, name));
    assert.equal(created.code, 0, `${kind} ${name} under restricted:\n${created.stderr}`);
    assert.doesNotMatch(created.stderr, /Warning/);
  }

  // hostPaths.prepare=false: no container runs as root; the hostPath volumes are all that restricted refuses.
  const lean = recorderPod(objects, false);
  const leanRefused = await createPod(cluster, 'restricted', 'recorder-lean', lean.spec as unknown as Record<string, unknown>);
  assert.match(leanRefused.stderr, /pods "recorder-lean" is forbidden: violates PodSecurity "restricted:latest": restricted volume types \(volumes "recordings", "data" use restricted volume type "hostPath"\)\n$/);
  // The default: the init container runs as root with CHOWN alone; that and hostPath are what restricted names.
  const prepared = recorderPod(objects, true);
  const refused = await createPod(cluster, 'restricted', 'recorder', prepared.spec as unknown as Record<string, unknown>);
  const violations = /violates PodSecurity "restricted:latest": (.*)\n/.exec(refused.stderr)?.[1] ?? refused.stderr;
  assert.deepEqual(violations.split(/, (?=[a-z])/).map((v) => v.replace(/ \(.*$/, '')).sort(), ['restricted volume types', 'runAsNonRoot != true', 'runAsUser=0', 'unrestricted capabilities'].sort(), violations);
  assert.match(violations, /container "prepare-dirs"/);
  assert.doesNotMatch(violations, /container "recorder"/, 'the recorder container itself meets restricted');

  // Baseline refuses hostPath whatever the rest; privileged is the level the recorders' namespace needs.
  const base = await createPod(cluster, 'baseline', 'recorder', prepared.spec as unknown as Record<string, unknown>);
  assert.match(base.stderr, /violates PodSecurity "baseline:latest": hostPath volumes \(volumes "recordings", "data"\)\n$/);
  ok(await createPod(cluster, 'privileged', 'recorder', prepared.spec as unknown as Record<string, unknown>), 'privileged admits the recorder Pod');
});
