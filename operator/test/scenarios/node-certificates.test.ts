// Node certificates from the operator's side: it makes the release CA, approves and signs a node's own request for
// exactly its names, and denies (Warning Event on the RecorderNode) a request from another node's account, one with a
// foreign name, and one from an account that is no recorder node. The recorders cannot read the CA's Secret.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { createSigningRequest } from '@vigil/kube';
import { SETTINGS_YAML } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { parseSettings } from '../../src/config/settings.js';
import { nodeCertificateNames } from '../../src/desired/node-certificate.js';
import { assertNoForbidden, startScenario, waitForEvents } from '../support/scenario.js';

const SETTINGS = `${SETTINGS_YAML}tls:\n  certificateLifetimeSeconds: 86400\n`;
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

interface Csr {
  metadata: { name: string };
  spec: { username: string };
  status?: { conditions?: Array<{ type: string; reason?: string; message?: string }>; certificate?: string };
}

test('the operator approves and signs a node’s own certificate request and denies the others, saying why', { timeout: 180_000 }, async (t) => {
  const { cluster, operator } = await startScenario(t, [{ name: 'node-a' }, { name: 'node-b' }], { settingsYaml: SETTINGS });
  const settings = parseSettings((await import('yaml')).parse(SETTINGS));
  const namesOf = (node: string): string[] => nodeCertificateNames(node, cluster.namespace, settings);
  assert.deepEqual(namesOf('node-a'), ['vigil-recorder-node-a', 'vigil-recorder-node-a.vigil', 'vigil-recorder-node-a.vigil.svc', 'vigil-recorder-node-a.vigil.svc.cluster.local', 'node-a.vigil.example.com']);

  const request = async (token: string, name: string, names: string[]): Promise<number> => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const body = { metadata: { name }, spec: { request: Buffer.from(createSigningRequest(privateKey, names)).toString('base64'), signerName: 'vigil.io/recorder-serving', usages: ['digital signature', 'server auth'] } };
    const res = await cluster.controlPlane.fetch(`${CSRS}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.status;
  };
  const read = async (name: string): Promise<Csr> => (await (await cluster.controlPlane.fetch(`${CSRS}/${name}`, { headers: { authorization: `Bearer ${cluster.controlPlane.adminToken}` } })).json()) as Csr;
  const settled = async (name: string): Promise<Csr> => {
    let csr: Csr | undefined;
    await waitUntil(async () => {
      csr = await read(name);
      const types = (csr.status?.conditions ?? []).map((c) => c.type);
      return types.includes('Denied') || (csr.status?.certificate ?? '') !== '';
    }, 30_000, `a decision on ${name}`);
    return csr as Csr;
  };

  const tokenA = (await cluster.nodeKubeconfig('node-a')).token;
  const tokenB = (await cluster.nodeKubeconfig('node-b')).token;
  assert.equal(await request(tokenA, 'own', namesOf('node-a')), 201);
  assert.equal(await request(tokenB, 'other-node', namesOf('node-a')), 201);
  assert.equal(await request(tokenA, 'foreign-name', [...namesOf('node-a'), 'bank.example.com']), 201);
  assert.equal(await request(cluster.controlPlane.adminToken, 'not-a-node', namesOf('node-a')), 201);

  // The node's own request: approved, signed by the release CA for exactly its names.
  const own = await settled('own');
  assert.equal(own.status?.conditions?.find((c) => c.type === 'Approved')?.reason, 'RecorderNodeIdentity');
  const chain = Buffer.from(own.status?.certificate ?? '', 'base64').toString('utf8');
  const leaf = new X509Certificate(chain);
  const caPem = (await cluster.core.readNamespacedConfigMap({ name: 'vigil-ca', namespace: cluster.namespace })).data?.['ca.crt'] ?? '';
  const ca = new X509Certificate(caPem);
  assert.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'issued by the release CA');
  assert.equal(leaf.subjectAltName, namesOf('node-a').map((n) => `DNS:${n}`).join(', '));
  assert.ok(chain.includes(caPem.trim()), 'the chain ends with the CA');
  const lifetime = Date.parse(leaf.validTo) - Date.parse(leaf.validFrom);
  assert.ok(lifetime > 86_000_000 && lifetime <= 86_400_000 + 300_000, `a day's lifetime (+ backdating), got ${lifetime} ms`);

  // The others: denied, each with its reason.
  const deniedAs = async (name: string, reason: string, message: RegExp): Promise<void> => {
    const csr = await settled(name);
    const denied = csr.status?.conditions?.find((c) => c.type === 'Denied');
    assert.equal(denied?.reason, reason, JSON.stringify(csr.status));
    assert.match(denied?.message ?? '', message);
    assert.equal(csr.status?.certificate, undefined);
  };
  await deniedAs('other-node', 'NamesMismatch', /node node-b: .*names that are not its own: "vigil-recorder-node-a"/);
  await deniedAs('foreign-name', 'NamesMismatch', /node node-a: .*names that are not its own: "bank\.example\.com"/);
  await deniedAs('not-a-node', 'NotARecorderNode', /requested by "system:serviceaccount:kube-system:test-cluster-admin", which is not the ServiceAccount of a recorder node/);
  await waitForEvents(cluster, (events) => events.some((e) => e.reason === 'CertificateDenied' && e.involvedObject.kind === 'RecorderNode' && e.involvedObject.name === 'node-b'), 'a CertificateDenied Event on node-b');
  assert.match(await cluster.kubectl('get', 'csr'), /other-node\s+.*system:serviceaccount:vigil:vigil-recorder-node-b\s+<none>\s+Denied/);

  // The CA's key is the operator's: a recorder's token cannot read its Secret.
  const secret = await cluster.controlPlane.fetch(`/api/v1/namespaces/${cluster.namespace}/secrets/vigil-ca`, { headers: { authorization: `Bearer ${tokenA}` } });
  assert.equal(secret.status, 403);
  const caSecret = await cluster.core.readNamespacedSecret({ name: 'vigil-ca', namespace: cluster.namespace });
  assert.equal(caSecret.type, 'kubernetes.io/tls');
  assertNoForbidden(operator);
});
