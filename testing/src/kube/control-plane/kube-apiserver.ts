// kube-apiserver for the tests: RBAC, the default admission plugins (PodSecurity, ServiceAccount and the rest), a
// ServiceAccount issuer with its own key, client certificates for the administrator, and an audit log of every request.
import { writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { waitForFixture, type FixtureProcess } from '../../fixture-process.js';
import { GO_TEST_GC, guardedProcess } from './orphan-guard.js';
import { startOnFreshPort } from '../../net.js';
import type { ControlPlanePki } from './pki.js';

export interface KubeApiserver {
  readonly url: string;
  readonly auditLogPath: string;
  readonly process: FixtureProcess;
  stop(): Promise<void>;
}

export interface KubeApiserverOptions {
  binary: string;
  dir: string;
  pki: ControlPlanePki;
  etcdUrl: string;
  /** etcd key prefix: several API servers can share one etcd without seeing each other's objects. */
  etcdPrefix: string;
}

const PORT_ATTEMPTS = 4;
export const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

// Metadata of every request once it is answered (who, verb, resource, status), not bodies: enough to count writes.
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

/** GET `path` as the administrator; the status code, or 0 when nothing answers yet. */
function adminGetStatus(url: string, path: string, pki: ControlPlanePki): Promise<number> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, {
      ca: readFileSync(pki.caFile), cert: readFileSync(pki.adminCertFile), key: readFileSync(pki.adminKeyFile), timeout: 2_000,
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function startOn(o: KubeApiserverOptions, port: number, auditPolicyFile: string, attempt: number): Promise<KubeApiserver> {
  const url = `https://127.0.0.1:${port}`;
  const auditLogPath = join(o.dir, `audit-${attempt}.log`);
  const proc = guardedProcess(o.binary, [
    `--etcd-servers=${o.etcdUrl}`, `--etcd-prefix=${o.etcdPrefix}`,
    '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1', `--secure-port=${port}`,
    `--cert-dir=${join(o.dir, 'apiserver-certs')}`,
    `--tls-cert-file=${o.pki.servingCertFile}`, `--tls-private-key-file=${o.pki.servingKeyFile}`,
    `--client-ca-file=${o.pki.caFile}`,
    '--authorization-mode=RBAC', '--anonymous-auth=false', '--allow-privileged=true',
    `--service-account-issuer=${SERVICE_ACCOUNT_ISSUER}`,
    `--service-account-key-file=${o.pki.serviceAccountPublicKeyFile}`, `--service-account-signing-key-file=${o.pki.serviceAccountKeyFile}`,
    '--service-cluster-ip-range=10.96.0.0/16',
    // The process kubelet's endpoint (port-forward): its InternalIP (127.0.0.1; the Hostname address names no host
    // here), its serving certificate checked against the cluster CA.
    '--kubelet-preferred-address-types=InternalIP', `--kubelet-certificate-authority=${o.pki.caFile}`,
    // One file, never rotated: by default it is rotated at 100 MB, which a 200-node run writes in about five minutes,
    // and the readers (audit-log.ts) read this one file.
    `--audit-policy-file=${auditPolicyFile}`, `--audit-log-path=${auditLogPath}`, '--audit-log-format=json', '--audit-log-maxbackup=0', '--audit-log-maxsize=1000000',
    // Events kept for the test's length; a shorter default TTL would not change what the tests see.
    '--event-ttl=1h',
    '--v=0',
  // Killed outright when the test ends: its graceful shutdown takes ~1.1 s of every test, and its state (in the test's
  // own etcd) is thrown away. The audit log is written as each request is answered, so nothing of it is lost.
  ], { stopSignal: 'KILL', env: GO_TEST_GC });
  try {
    await waitForFixture(proc, async () => (await adminGetStatus(url, '/readyz', o.pki)) === 200, 90_000, 'kube-apiserver');
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { url, auditLogPath, process: proc, stop: () => proc.stop() };
}

/** Starts kube-apiserver on a fresh loopback port and waits for /readyz. */
export async function startKubeApiserver(o: KubeApiserverOptions): Promise<KubeApiserver> {
  const auditPolicyFile = join(o.dir, 'audit-policy.yaml');
  await writeFile(auditPolicyFile, AUDIT_POLICY);
  let attempt = 0;
  return startOnFreshPort((port) => startOn(o, port, auditPolicyFile, ++attempt), (err) => /address already in use/i.test(String(err)), PORT_ATTEMPTS);
}
