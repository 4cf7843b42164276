// The control plane's keys and certificates, made with the openssl command: one CA for serving and client certificates,
// kube-apiserver's serving certificate, the administrator's client certificate (group system:masters) and the
// ServiceAccount token signing key.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, runCommand } from '../../command.js';

export interface ControlPlanePki {
  caFile: string;
  caKeyFile: string;
  caPem: string;
  servingCertFile: string;
  servingKeyFile: string;
  adminCertFile: string;
  adminKeyFile: string;
  /** Signs ServiceAccount tokens (kube-apiserver; the controller-manager's token controller reads it too). */
  serviceAccountKeyFile: string;
  /** Its public half, which verifies them. */
  serviceAccountPublicKeyFile: string;
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

async function openssl(args: string[], what: string): Promise<void> {
  ok(await runCommand('openssl', args, { timeoutMs: 30_000 }), `openssl ${what}`);
}

async function issue(dir: string, name: string, subject: string, extensions: string, ca: { cert: string; key: string }): Promise<{ cert: string; key: string }> {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const ext = join(dir, `${name}.ext`);
  await writeFile(ext, extensions);
  await openssl(['req', '-new', ...EC, '-keyout', key, '-out', join(dir, `${name}.csr`), '-subj', subject], `req ${name}`);
  await openssl(['x509', '-req', '-in', join(dir, `${name}.csr`), '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '30', '-extfile', ext, '-out', cert], `x509 ${name}`);
  return { cert, key };
}

/** Makes every key and certificate in `dir` (about half a second of openssl). */
export async function createControlPlanePki(dir: string): Promise<ControlPlanePki> {
  await mkdir(dir, { recursive: true });
  const ca = { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') };
  await openssl(['req', '-x509', ...EC, '-keyout', ca.key, '-out', ca.cert, '-days', '30', '-subj', '/CN=vigil-test-kubernetes-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], 'req -x509 (CA)');
  // The names a client inside the cluster uses for the API, and loopback for everything on this machine.
  const names = 'DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.96.0.1';
  const serving = await issue(dir, 'apiserver', '/CN=kube-apiserver',
    `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=${names}\n`, ca);
  const admin = await issue(dir, 'admin', '/O=system:masters/CN=vigil-test-admin',
    'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n', ca);
  const serviceAccountKeyFile = join(dir, 'service-account.key');
  const serviceAccountPublicKeyFile = join(dir, 'service-account.pub');
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', serviceAccountKeyFile], 'ecparam (ServiceAccount key)');
  await openssl(['ec', '-in', serviceAccountKeyFile, '-pubout', '-out', serviceAccountPublicKeyFile], 'ec -pubout (ServiceAccount key)');
  return {
    caFile: ca.cert,
    caKeyFile: ca.key,
    caPem: await readFile(ca.cert, 'utf8'),
    servingCertFile: serving.cert,
    servingKeyFile: serving.key,
    adminCertFile: admin.cert,
    adminKeyFile: admin.key,
    serviceAccountKeyFile,
    serviceAccountPublicKeyFile,
  };
}
