// helm uninstall with the operator gone, as when its Deployment is deleted first: garbage collection through the owner
// references alone removes every recorder Pod, per-node Service and Ingress, the RecorderNodes, each node's identity
// (ServiceAccount, Role, bindings, heartbeat Lease, camera credentials Secret) and the operator's Lease. The Cameras and the user's own Secrets stay (they are the user's data), and so do the CRDs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { garbageCollectorWatches } from '@vigil/testing/kube/control-plane/audit-log';
import { waitUntil } from '@vigil/testing/processes';
import { addNode, heartbeat, installWithOperator, NS } from './support/installed-release.js';

const NODES = ['node-a', 'node-b'];

test('after helm uninstall nothing of Vigil keeps running or stays behind but the Cameras and the CRDs', async (t) => {
  const release = await installWithOperator(t, { ingress: { enabled: true, className: 'nginx', host: 'vigil.example.com' } });
  const { cluster, operator, kubectl } = release;
  const names = async (args: string[]) => (await kubectl([...args, '-o', 'name'])).split('\n').filter((l) => l !== '').sort();
  for (const node of NODES) await addNode(release, node);
  const beat = await heartbeat(t, release, 'node-a');
  await kubectl(['-n', NS, 'create', 'secret', 'generic', 'lobby-login', '--from-literal=username=admin', '--from-literal=password=pw']);
  await kubectl(['-n', NS, 'apply', '-f', '-'], 'apiVersion: vigil.io/v1alpha1\nkind: Camera\nmetadata: {name: lobby}\nspec: {source: "rtsp://192.0.2.10/s", credentialsSecretRef: {name: lobby-login}}\n');

  // Everything the operator and the recorders make, each carrying an owner reference to an object of the release.
  const byConfigMap = ['Pod/vigil-recorder-node-a', 'Pod/vigil-recorder-node-b', 'Service/vigil-recorder-node-a', 'Service/vigil-recorder-node-b', 'Ingress/vigil-recorder-node-a', 'Ingress/vigil-recorder-node-b', 'Lease/vigil-operator'];
  const byNode = NODES.flatMap((n) => [`ServiceAccount/vigil-recorder-${n}`, `Role/vigil-recorder-${n}`, `RoleBinding/vigil-recorder-${n}`, `RoleBinding/vigil-recorder-${n}-shared`, `Lease/vigil-node-${n}`, `Secret/vigil-camera-credentials-${n}`]);
  const owners = async (): Promise<Map<string, string>> => {
    const list = JSON.parse(await kubectl(['-n', NS, 'get', 'pods,services,ingresses,secrets,leases,serviceaccounts,roles,rolebindings', '-o', 'json'])) as { items: Array<{ kind: string; metadata: { name: string; ownerReferences?: Array<{ kind: string; name: string }> } }> };
    return new Map(list.items.map((o) => [`${o.kind}/${o.metadata.name}`, (o.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`).join(',')]));
  };
  let seen = new Map<string, string>();
  await waitUntil(async () => {
    seen = await owners();
    return byConfigMap.every((m) => seen.get(m) === 'ConfigMap/vigil-recorder') && byNode.every((m) => seen.get(m) === `RecorderNode/${/node-[ab]/.exec(m)?.[0] ?? ''}`);
  }, 30_000, 'every per-node object and the operator\'s Lease owned by the recorder ConfigMap; each node\'s identity and credentials Secret by its RecorderNode').catch((err: Error) => {
    throw new Error(`${err.message}\n${[...seen].map(([k, v]) => `${k} <- ${v}`).join('\n')}`);
  });
  await waitUntil(async () => (await kubectl(['get', 'rn', '-o', 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {end}'])).trim() === 'ClusterRole/vigil-vigil-operator ClusterRole/vigil-vigil-operator', 30_000, 'the RecorderNodes owned by the operator\'s ClusterRole');

  // On a cluster the CRDs are older than the garbage collector's 30 s discovery; here helm made them seconds ago, and
  // until the collector watches RecorderNodes it cannot see them go nor remove what they own (it would, only later).
  await waitUntil(() => garbageCollectorWatches(cluster.controlPlane.auditLogPath, 'recordernodes'), 60_000, 'kube-controller-manager\'s garbage collector watching RecorderNodes');

  // The operator goes first (helm deletes its Deployment before anything else), then the release.
  assert.equal(await operator.stop(), 0);
  beat.stop();
  assert.match(await kubectl(['-n', NS, 'get', 'lease', 'vigil-operator', '-o', 'jsonpath={.spec.holderIdentity}']), /^$/, 'the operator let its Lease go');
  assert.match((await cluster.helm(['uninstall', 'vigil', '-n', NS, '--wait', '--timeout', '60s'])).stdout, /release "vigil" uninstalled/);

  let left: string[] = [];
  await waitUntil(async () => {
    const all = [...await names(['-n', NS, 'get', 'pods,services,ingresses,leases,secrets,configmaps,serviceaccounts,roles,rolebindings']), ...await names(['get', 'recordernodes,clusterrolebindings'])];
    // The release CA's Secret stays on purpose (a reinstall keeps trusting what it issued; docs/kubernetes.md §19).
    left = all.filter((n) => !(n === 'secret/lobby-login' || n === 'secret/vigil-ca' || n === 'configmap/kube-root-ca.crt' || n === 'serviceaccount/default' || (n.startsWith('clusterrolebinding.rbac.authorization.k8s.io/') && !n.includes('vigil'))));
    return left.length === 0;
  }, 60_000, 'garbage collection').catch((err: Error) => {
    throw new Error(`${err.message}; left: ${left.join(' ')}`);
  });
  assert.deepEqual(await names(['-n', NS, 'get', 'cameras']), ['camera.vigil.io/lobby'], 'the Cameras are the user\'s data and stay');
  assert.deepEqual(await names(['get', 'crd', 'cameras.vigil.io', 'recordernodes.vigil.io']), ['customresourcedefinition.apiextensions.k8s.io/cameras.vigil.io', 'customresourcedefinition.apiextensions.k8s.io/recordernodes.vigil.io'], 'helm never deletes CRDs');
  assert.deepEqual(beat.errors, []);
});
