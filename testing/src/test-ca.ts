// Test support: a certificate authority made with the openssl command, issuing server certificates (full chain) for loopback names.
import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, runCommand } from './command.js';

export interface IssuedCertificate {
  /** The server certificate, then the intermediate that issued it when the CA has one (what a server serves). */
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
  /** As node:tls reports a peer's serial (upper-case hex). */
  serial: string;
  notAfter: Date;
  /** base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo (Chromium's --ignore-certificate-errors-spki-list). */
  spkiSha256: string;
}

export interface IssueOptions {
  /** DNS names and IP addresses the certificate is for; default 127.0.0.1 and localhost. */
  hosts?: string[];
  /** Valid from now for this many days (default 90). */
  days?: number;
}

export interface TestCa {
  readonly dir: string;
  /** The root certificate clients trust (PEM), and its file. */
  readonly caPem: string;
  readonly caFile: string;
  /** The root's SubjectPublicKeyInfo hash, for Chromium. */
  readonly caSpkiSha256: string;
  /** Issues a server certificate and key into `<dir>/<name>.crt` and `.key`. */
  issue(name: string, opts?: IssueOptions): Promise<IssuedCertificate>;
  /** Signs a PKCS#10 request (PEM) as a signer would: for the request's key, with the names in `opts.hosts`; the certificate PEM. */
  signRequest(csrPem: string, opts: IssueOptions & { hosts: string[] }): Promise<string>;
}

const CURVE = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

export function spkiSha256(certPem: string): string {
  return createHash('sha256').update(new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' })).digest('base64');
}

async function openssl(args: string[], what: string): Promise<void> {
  ok(await runCommand('openssl', args, { timeoutMs: 30_000 }), `openssl ${what}`);
}

/** A positive 16-byte serial, different for every certificate (so a test can tell two certificates apart by it). */
function serialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x10;
  return bytes.toString('hex');
}

async function signed(dir: string, file: string, issuer: { cert: string; key: string }, subject: string, days: number, extensions: string): Promise<void> {
  const ext = join(dir, `${file}.ext`);
  await writeFile(ext, extensions);
  await openssl(['req', '-new', ...CURVE, '-keyout', join(dir, `${file}.key`), '-out', join(dir, `${file}.csr`), '-subj', `/CN=${subject}`], `req ${file}`);
  // -days counts from now; a notBefore an hour back would need `openssl ca`, and clocks on loopback agree anyway.
  await openssl(['x509', '-req', '-in', join(dir, `${file}.csr`), '-CA', issuer.cert, '-CAkey', issuer.key, '-set_serial', `0x${serialHex()}`, '-days', String(days), '-extfile', ext, '-out', join(dir, `${file}.crt`)], `x509 ${file}`);
}

/** A root CA (ECDSA P-256) and, with `intermediate`, an intermediate CA under it that issues the server certificates. */
export async function createTestCa(dir: string, opts: { name?: string; intermediate?: boolean } = {}): Promise<TestCa> {
  const name = opts.name ?? 'Vigil Test CA';
  await mkdir(dir, { recursive: true });
  const root = { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') };
  await openssl(['req', '-x509', ...CURVE, '-keyout', root.key, '-out', root.cert, '-days', '3650', '-subj', `/CN=${name}`], 'req -x509 (root CA)');
  const caExtensions = 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n';
  let issuer = root;
  let chainTail = '';
  if (opts.intermediate === true) {
    await signed(dir, 'intermediate', root, `${name} Intermediate`, 3650, caExtensions);
    issuer = { cert: join(dir, 'intermediate.crt'), key: join(dir, 'intermediate.key') };
    chainTail = await readFile(issuer.cert, 'utf8');
  }
  const caPem = await readFile(root.cert, 'utf8');
  const sanOf = (hosts: string[]): string => hosts.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  const leafExtensions = (hosts: string[]): string => `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=${sanOf(hosts)}\n`;
  return {
    dir,
    caPem,
    caFile: root.cert,
    caSpkiSha256: spkiSha256(caPem),
    issue: async (certName, issueOpts = {}) => {
      const hosts = issueOpts.hosts ?? ['127.0.0.1', 'localhost'];
      const work = join(dir, `issue-${certName}-${serialHex().slice(0, 8)}`);
      await mkdir(work);
      await signed(work, 'server', issuer, hosts[0] ?? certName, issueOpts.days ?? 90, leafExtensions(hosts));
      const certPem = (await readFile(join(work, 'server.crt'), 'utf8')) + chainTail;
      const keyPem = await readFile(join(work, 'server.key'), 'utf8');
      const certFile = join(dir, `${certName}.crt`);
      const keyFile = join(dir, `${certName}.key`);
      // Written beside and renamed into place: a server watching these paths never reads half a file.
      await writeFile(`${certFile}.tmp`, certPem);
      await writeFile(`${keyFile}.tmp`, keyPem, { mode: 0o600 });
      await rename(`${certFile}.tmp`, certFile);
      await rename(`${keyFile}.tmp`, keyFile);
      const leaf = new X509Certificate(certPem);
      return { certFile, keyFile, certPem, keyPem, serial: leaf.serialNumber, notAfter: new Date(leaf.validTo), spkiSha256: spkiSha256(certPem) };
    },
    signRequest: async (csrPem, signOpts) => {
      const work = join(dir, `sign-${serialHex().slice(0, 8)}`);
      await mkdir(work);
      await writeFile(join(work, 'request.csr'), csrPem);
      await writeFile(join(work, 'leaf.ext'), leafExtensions(signOpts.hosts));
      await openssl(['x509', '-req', '-in', join(work, 'request.csr'), '-CA', issuer.cert, '-CAkey', issuer.key, '-set_serial', `0x${serialHex()}`, '-days', String(signOpts.days ?? 90), '-extfile', join(work, 'leaf.ext'), '-out', join(work, 'leaf.crt')], 'x509 -req (sign a request)');
      return (await readFile(join(work, 'leaf.crt'), 'utf8')) + chainTail;
    },
  };
}
