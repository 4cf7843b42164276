// The CertificateSigningRequest API as kube-apiserver has it, driven with real kubectl and openssl: the requester is the
// caller, requests are checked, the spec never changes, approval and certificates go through their own subresources,
// and approving or signing needs `approve` or `sign` on the signer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../../../src/command.js';
import { ok, startEmulatorFixture, type EmulatorFixture } from './emulator-fixture.js';

const SIGNER = 'example.com/serving';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

async function openssl(args: string[]): Promise<void> {
  const r = await runCommand('openssl', args, { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** A PEM CSR (ECDSA P-256) for `cn`, made by openssl. */
async function opensslCsr(dir: string, cn: string): Promise<string> {
  const file = join(dir, `${cn}.csr`);
  await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, `${cn}.key`), '-out', file, '-subj', `/CN=${cn}`, '-addext', `subjectAltName=DNS:${cn}`]);
  return readFile(file, 'utf8');
}

/** A self-signed certificate (what a signer would put into status.certificate). */
async function opensslCertificate(dir: string, cn: string): Promise<string> {
  const file = join(dir, `${cn}.crt`);
  await openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, `${cn}-ca.key`), '-out', file, '-subj', `/CN=${cn}`, '-days', '1']);
  return readFile(file, 'utf8');
}

function csrBody(name: string, request: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(request).toString('base64'), signerName: SIGNER, usages: ['digital signature', 'server auth'], ...extra } };
}

/** A ServiceAccount in `default` with a token and a kubeconfig, bound to a ClusterRole of `rules`. */
async function account(f: EmulatorFixture, name: string, rules: Array<Record<string, unknown>>): Promise<{ token: string; kubeconfig: string }> {
  ok(await f.kubectl(['create', 'serviceaccount', name]), 'create sa');
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules };
  assert.equal((await f.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', role)).status, 201);
  ok(await f.kubectl(['create', 'clusterrolebinding', name, `--clusterrole=${name}`, `--serviceaccount=default:${name}`]), 'binding');
  const token = await f.emulator.issueServiceAccountToken('default', name);
  const kubeconfig = join(f.dir, `${name}.kubeconfig`);
  await f.emulator.writeKubeconfig(kubeconfig, { token, user: name });
  return { token, kubeconfig };
}

const REQUESTER_RULES = [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get', 'list', 'watch'] }];

test('a CSR records its requester from the caller, is validated as kube-apiserver does, and its spec cannot change', async (t) => {
  const f = await startEmulatorFixture(t);
  const requester = await account(f, 'node-a', REQUESTER_RULES);
  const pem = await opensslCsr(f.dir, 'node-a.example');

  // kubectl create with a spec naming someone else: the server writes who really asked.
  const created = ok(await f.kubectl(['create', '-f', '-', '-o', 'json'], { kubeconfig: requester.kubeconfig, input: JSON.stringify(csrBody('one', pem, { username: 'system:admin', groups: ['system:masters'] })) }), 'kubectl create csr');
  const spec = (JSON.parse(created) as { spec: Record<string, unknown> }).spec;
  assert.equal(spec.username, 'system:serviceaccount:default:node-a');
  assert.ok(Array.isArray(spec.groups) && spec.groups.includes('system:serviceaccounts') && !spec.groups.includes('system:masters'));
  assert.equal(typeof spec.uid, 'string');
  const table = ok(await f.kubectl(['get', 'csr']), 'get csr');
  assert.match(table, /NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/);
  assert.match(table, /one\s+\S+\s+example\.com\/serving\s+system:serviceaccount:default:node-a\s+<none>\s+Pending/);

  // Validation, with the API server's messages.
  const refused = async (body: Record<string, unknown>, message: RegExp): Promise<void> => {
    const r = await f.request('POST', CSRS, body, { token: requester.token });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.match((r.body as { message: string }).message, message);
  };
  await refused(csrBody('garbage', 'not a request'), /spec\.request: Invalid value: .*PEM block type must be CERTIFICATE REQUEST/);
  // The same request with one bit of its signature flipped (the signature is the DER's last bytes).
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
  der[der.length - 1] = (der[der.length - 1] as number) ^ 0x01;
  const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  await refused(csrBody('tampered', tampered), /spec\.request: Invalid value: .*(verification|malformed)/);
  await refused(csrBody('no-usages', pem, { usages: [] }), /spec\.usages: Required value/);
  await refused(csrBody('bad-usage', pem, { usages: ['server auth', 'server auth', 'fly'] }), /spec\.usages\[1\]: Duplicate value: "server auth".*spec\.usages\[2\]: Unsupported value: "fly"/);
  await refused(csrBody('bad-signer', pem, { signerName: 'serving' }), /spec\.signerName: Invalid value: "serving": must be a fully qualified domain and path of the form 'example\.com\/signer-name'/);
  await refused(csrBody('short', pem, { expirationSeconds: 300 }), /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 600 seconds/);

  // The spec is immutable: an update is answered with the stored spec unchanged; a status in a create is dropped.
  const stored = (await f.request('GET', `${CSRS}/one`)).body as Record<string, unknown>;
  const changed = await f.request('PUT', `${CSRS}/one`, { ...stored, spec: { ...(stored.spec as object), signerName: 'example.com/other', usages: ['client auth'] } });
  assert.equal(changed.status, 200);
  assert.equal(((changed.body as { spec: { signerName: string } }).spec).signerName, SIGNER);
  const preApproved = await f.request('POST', CSRS, { ...csrBody('pre', pem), status: { conditions: [{ type: 'Approved', status: 'True' }] } });
  assert.equal(preApproved.status, 201);
  assert.equal((preApproved.body as { status?: unknown }).status, undefined);

  // A list can be narrowed to one signer.
  const bySigner = await f.request('GET', `${CSRS}?fieldSelector=${encodeURIComponent(`spec.signerName=${SIGNER}`)}`);
  assert.deepEqual(((bySigner.body as { items: Array<{ metadata: { name: string } }> }).items).map((i) => i.metadata.name).sort(), ['one', 'pre']);
});

test('approval and signing go through their subresources and need approve and sign on the signer; kubectl certificate approve and deny work', async (t) => {
  const f = await startEmulatorFixture(t);
  const requester = await account(f, 'node-a', REQUESTER_RULES);
  const pem = await opensslCsr(f.dir, 'node-a.example');
  for (const name of ['approve-me', 'deny-me', 'wildcard']) assert.equal((await f.request('POST', CSRS, csrBody(name, pem), { token: requester.token })).status, 201);
  const certificate = Buffer.from(await opensslCertificate(f.dir, 'node-a.example')).toString('base64');
  const approvalOf = (csr: Record<string, unknown>, type: 'Approved' | 'Denied'): Record<string, unknown> => ({ ...csr, status: { conditions: [{ type, status: 'True', reason: 'Test', message: 'by the test' }] } });
  const get = async (name: string): Promise<Record<string, unknown>> => (await f.request('GET', `${CSRS}/${name}`)).body as Record<string, unknown>;

  // The requester can neither approve its own request nor sign it.
  const selfApproval = await f.request('PUT', `${CSRS}/approve-me/approval`, approvalOf(await get('approve-me'), 'Approved'), { token: requester.token });
  assert.equal(selfApproval.status, 403);
  assert.match((selfApproval.body as { message: string }).message, /certificatesigningrequests\.certificates\.k8s\.io "approve-me" is forbidden: User "system:serviceaccount:default:node-a" cannot update resource "certificatesigningrequests\/approval"/);

  // An approver with update on /approval but no `approve` on the signer is refused by admission.
  const noSigner = await account(f, 'half-approver', [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] }, ...REQUESTER_RULES]);
  const halfway = await f.request('PUT', `${CSRS}/approve-me/approval`, approvalOf(await get('approve-me'), 'Approved'), { token: noSigner.token });
  assert.equal(halfway.status, 403);
  assert.match((halfway.body as { message: string }).message, /user not permitted to approve requests with signerName "example\.com\/serving"/);

  // A certificate before approval is refused (stricter than kube-apiserver, which leaves it to signers).
  const early = await f.request('PUT', `${CSRS}/approve-me/status`, { ...(await get('approve-me')), status: { certificate } });
  assert.equal(early.status, 422);

  // The approver: update on /approval, approve on the signer by name or "<domain>/*".
  const approver = await account(f, 'approver', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: [SIGNER], verbs: ['approve'] },
  ]);
  ok(await f.kubectl(['certificate', 'approve', 'approve-me'], { kubeconfig: approver.kubeconfig }), 'kubectl certificate approve');
  ok(await f.kubectl(['certificate', 'deny', 'deny-me'], { kubeconfig: approver.kubeconfig }), 'kubectl certificate deny');
  const approved = await get('approve-me');
  const conditions = (approved.status as { conditions: Array<Record<string, unknown>> }).conditions;
  assert.equal(conditions[0]?.type, 'Approved');
  assert.equal(conditions[0]?.reason, 'KubectlApprove');
  assert.equal(typeof conditions[0]?.lastUpdateTime, 'string');
  // Approved and Denied together are refused; an approval cannot be taken back.
  const both = await f.request('PUT', `${CSRS}/approve-me/approval`, { ...approved, status: { conditions: [...conditions, { type: 'Denied', status: 'True' }] } });
  assert.equal(both.status, 422);
  assert.match((both.body as { message: string }).message, /Approved and Denied conditions are mutually exclusive/);
  const removed = await f.request('PUT', `${CSRS}/approve-me/approval`, { ...approved, status: { conditions: [] } });
  assert.equal(removed.status, 422);
  assert.match((removed.body as { message: string }).message, /updates may not remove a condition of type "Approved"/);
  // /status cannot approve.
  const viaStatus = await f.request('PUT', `${CSRS}/wildcard/status`, approvalOf(await get('wildcard'), 'Approved'));
  assert.equal(viaStatus.status, 200);
  assert.equal((viaStatus.body as { status?: { conditions?: unknown } }).status?.conditions, undefined, '/status leaves the approval as it was');
  const domainWide = await account(f, 'domain-approver', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] },
  ]);
  assert.equal((await f.request('PUT', `${CSRS}/wildcard/approval`, approvalOf(await get('wildcard'), 'Approved'), { token: domainWide.token })).status, 200);

  // Signing: update on /status and `sign` on the signer; once only.
  const unsigned = await f.request('PUT', `${CSRS}/approve-me/status`, { ...approved, status: { ...(approved.status as object), certificate } }, { token: approver.token });
  assert.equal(unsigned.status, 403);
  const signer = await account(f, 'signer', [
    { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] },
    { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: [SIGNER], verbs: ['sign'] },
  ]);
  const signed = await f.request('PUT', `${CSRS}/approve-me/status`, { ...approved, status: { ...(approved.status as object), certificate } }, { token: signer.token });
  assert.equal(signed.status, 200, JSON.stringify(signed.body));
  assert.match(ok(await f.kubectl(['get', 'csr', 'approve-me']), 'get csr'), /approve-me\s+.*Approved,Issued/);
  assert.match(ok(await f.kubectl(['get', 'csr', 'deny-me']), 'get csr'), /deny-me\s+.*Denied/);
  const again = await f.request('PUT', `${CSRS}/approve-me/status`, { ...(signed.body as object), status: { ...((signed.body as { status: object }).status), certificate: Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n').toString('base64') } }, { token: signer.token });
  assert.equal(again.status, 422);
  assert.match((again.body as { message: string }).message, /status\.certificate/);
  // The requester reads its certificate back.
  const mine = (await f.request('GET', `${CSRS}/approve-me`, undefined, { token: requester.token })).body as { status: { certificate: string } };
  assert.equal(mine.status.certificate, certificate);
});
