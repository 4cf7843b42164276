// The certificate-requests controller, one reconcile at a time against kube-apiserver as the operator's ServiceAccount:
// a request a person approved for a node's names but which that node did not send is not signed but Failed, with the
// reason and a Warning Event; the node's own approved request is signed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { API_VERSION, type RecorderNode } from '@vigil/crds';
import { createSigningRequest, KubeClient, loadKubeConfig, Resources, type CertificateSigningRequest } from '@vigil/kube';
import { SETTINGS_YAML } from '@vigil/testing/kube/test-cluster';
import { waitUntil } from '@vigil/testing/processes';
import { reconcileCertificateRequestsFor } from '../../src/controllers/certificate-requests.js';
import { reconcileReleaseCaFor, RELEASE_CA_KEY } from '../../src/controllers/release-ca.js';
import { nodeCertificateNames } from '../../src/desired/node-certificate.js';
import { inProcessOperator } from '../support/in-process.js';

test('an approved request is decided again at signing: another account asking for node-a’s names is Failed, not signed', async (t) => {
  const { ctx, admin, signal, until, cluster } = await inProcessOperator(t, { settingsYaml: `${SETTINGS_YAML}tls:\n  certificateLifetimeSeconds: 86400\n` });
  await admin.create<RecorderNode>(Resources.recorderNodes, { apiVersion: API_VERSION, kind: 'RecorderNode', metadata: { name: 'node-a' }, spec: { nodeName: 'node-a', member: true } });
  await until(() => ctx.caches.recorderNodes.get('node-a') !== undefined && ctx.caches.configMaps.get(`${cluster.namespace}/vigil-recorder`) !== undefined, 'the RecorderNode and the recorder ConfigMap in the caches');
  await reconcileReleaseCaFor(ctx)(RELEASE_CA_KEY, signal);
  const names = nodeCertificateNames('node-a', cluster.namespace, ctx.settings);
  const ask = async (client: KubeClient, name: string): Promise<void> => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await client.create(Resources.certificateSigningRequests, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(createSigningRequest(privateKey, names)).toString('base64'), signerName: 'vigil.io/recorder-serving', usages: ['digital signature', 'server auth'] } } as CertificateSigningRequest);
    // Approved by a person in bulk, before the operator decided.
    const csr = await admin.get<CertificateSigningRequest>(Resources.certificateSigningRequests, undefined, name) as CertificateSigningRequest;
    await admin.replace(Resources.certificateSigningRequests, { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'BulkApproved', message: 'approved by hand' }] } }, { subresource: 'approval' });
    await until(() => (ctx.caches.certificateSigningRequests?.get(name)?.status?.conditions ?? []).some((c) => c.type === 'Approved'), `${name} approved in the cache`);
  };
  await ask(admin, 'by-a-person');
  const nodeA = new KubeClient(loadKubeConfig({ KUBECONFIG: (await cluster.nodeKubeconfig('node-a', { provision: true })).path }));
  t.after(() => nodeA.close());
  await ask(nodeA, 'by-node-a');

  const reconcile = reconcileCertificateRequestsFor(ctx);
  await reconcile('by-a-person', signal);
  await reconcile('by-node-a', signal);
  const read = async (name: string) => (await admin.get<CertificateSigningRequest>(Resources.certificateSigningRequests, undefined, name)) as CertificateSigningRequest;
  const failed = (await read('by-a-person')).status;
  assert.equal(failed?.certificate, undefined, 'no certificate for names that are not the requester’s');
  const condition = failed?.conditions?.find((c) => c.type === 'Failed');
  assert.equal(condition?.reason, 'NotARecorderNode');
  assert.match(condition?.message ?? '', /not signed: requested by "vigil-test-admin"/);
  assert.match(Buffer.from((await read('by-node-a')).status?.certificate ?? '', 'base64').toString('utf8'), /BEGIN CERTIFICATE/, 'the node’s own request is signed');
  await waitUntil(async () => (await cluster.events()).some((e) => e.reason === 'CertificateNotSigned' && /by-a-person/.test(e.message ?? '')), 10_000, 'a CertificateNotSigned Event');
});
