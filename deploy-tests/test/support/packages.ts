// The deb and rpm under test: built by scripts/package.sh (what `npm run package` runs), read with dpkg-deb and rpm,
// and the recorder they install started inside a throw-away root.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { runCommand, ok } from '@vigil/testing/command';
import { waitUntil } from '@vigil/testing/processes';
import { REPO_ROOT } from './chart.js';
import type { ThrowawayRoot } from './throwaway-root.js';

export interface BuiltPackages { version: string; deb: string; rpm: string }

export const REPO_VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The version after `version` (patch + 1): the upgrade the tests install over the repository's version. */
export function nextPatch(version: string): string {
  const [major, minor, patch] = version.split('.').map(Number);
  return `${major}.${minor}.${(patch ?? 0) + 1}`;
}

export async function buildPackages(version: string, out: string): Promise<BuiltPackages> {
  const stdout = ok(await runCommand('bash', [join(REPO_ROOT, 'scripts/package.sh'), '--version', version, '--out', out], { timeoutMs: 300_000 }), `scripts/package.sh --version ${version}`);
  const [deb, rpm] = stdout.trim().split('\n');
  return { version, deb: deb!, rpm: rpm! };
}

/** Fields of a deb's control file. */
export async function debControl(deb: string): Promise<Record<string, string>> {
  const text = ok(await runCommand('dpkg-deb', ['--field', deb]), 'dpkg-deb --field');
  const fields: Record<string, string> = {};
  let last = '';
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z-]+): (.*)$/.exec(line);
    if (m) fields[(last = m[1]!)] = m[2]!;
    else if (line.startsWith(' ') && last) fields[last] += `\n${line.trim()}`;
  }
  return fields;
}

/** Paths a deb installs (directories without their trailing slash), absolute. */
export async function debPaths(deb: string): Promise<string[]> {
  const text = ok(await runCommand('bash', ['-o', 'pipefail', '-c', 'dpkg-deb --fsys-tarfile "$1" | tar -t', 'bash', deb]), 'listing the deb');
  return text.split('\n').filter((l) => l !== '' && l !== './').map((l) => l.replace(/^\./, '').replace(/\/$/, ''));
}

export async function rpmQuery(rpm: string, ...args: string[]): Promise<string> {
  return ok(await runCommand('rpm', ['-qp', ...args, rpm]), `rpm -qp ${args.join(' ')}`);
}

export const ADMIN_TOKEN = 'package-test-admin-token';

/** Where the package makes the API's self-signed certificate and key (the packaged config.yaml's `tls`). */
export const PACKAGED_CERT = '/etc/vigil/tls/vigil.crt';
export const PACKAGED_KEY = '/etc/vigil/tls/vigil.key';

/** A configuration an administrator would write after installing: a token, one camera, the packaged paths and certificate. */
export function testConfig(port: number, cameraUrl: string): string {
  const sha256 = createHash('sha256').update(ADMIN_TOKEN).digest('hex');
  return [
    '# edited by the administrator after the install',
    `listen: "127.0.0.1:${port}"`,
    `tls: {cert_file: ${PACKAGED_CERT}, key_file: ${PACKAGED_KEY}}`,
    'nodeName: pkg-node',
    'record_path: /var/lib/vigil/recordings',
    'work_dir: /var/lib/vigil',
    'log_file: /var/log/vigil/vigil.log',
    'metrics: {listen: "127.0.0.1:0"}',
    'record: {segment_seconds: 2}',
    `auth: {tokens: [{name: ops, role: admin, sha256: "${sha256}"}]}`,
    `cameras: [{id: gate, source: "${cameraUrl}"}]`,
    '',
  ].join('\n');
}

/** Runs the rest of an argv as the package's vigil user, the way the unit's User=/Group= do (exec, no session). */
export const AS_VIGIL = ['setpriv', '--reuid=vigil', '--regid=vigil', '--init-groups'];

export interface InstalledRecorder {
  child: ChildProcess;
  base: string;
  /** The PEM certificate the recorder is trusted with (the package's self-signed one). */
  ca: string;
  output: () => string;
}

/** Starts /usr/bin/vigil-recorder in the root as the vigil user from /var/lib/vigil, the way the unit does; it serves HTTPS with `ca`. */
export function startInstalledRecorder(root: ThrowawayRoot, port: number, ca: string): InstalledRecorder {
  const child = root.spawn([...AS_VIGIL, 'sh', '-c', 'cd /var/lib/vigil && exec /usr/bin/vigil-recorder --config /etc/vigil/config.yaml --conf-dir /etc/vigil/conf.d']);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  return { child, base: `https://127.0.0.1:${port}`, ca, output: () => output };
}

/** A GET over HTTPS trusting only `ca`; the JSON body. */
export function getJson(url: string, ca: string, token?: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, timeout: 2_000, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 2 s`)));
    req.on('error', reject);
    req.end();
  });
}

export async function readiness(rec: Pick<InstalledRecorder, 'base' | 'ca'>): Promise<{ status: number; version?: string }> {
  try {
    const res = await getJson(`${rec.base}/api/health/ready`, rec.ca);
    const body = res.body as { version?: string };
    return { status: res.status, ...(body.version === undefined ? {} : { version: body.version }) };
  } catch {
    return { status: 0 };
  }
}

export async function waitReady(rec: InstalledRecorder, version: string): Promise<void> {
  await waitUntil(async () => {
    if (rec.child.exitCode !== null) throw new Error(`the installed recorder exited ${rec.child.exitCode}:\n${rec.output()}`);
    const r = await readiness(rec);
    return r.status === 200 && r.version === version;
  }, 30_000, `readiness 200 with version ${version}`);
}

export async function closedSegments(rec: Pick<InstalledRecorder, 'base' | 'ca'>, camera: string): Promise<string[]> {
  const body = (await getJson(`${rec.base}/api/archive/${camera}/segments`, rec.ca, ADMIN_TOKEN)).body as { archive: Array<{ filename: string; is_open: boolean }> };
  return body.archive.filter((s) => !s.is_open).map((s) => s.filename);
}

/** SIGTERM, as `systemctl stop` sends it; resolves with the exit code. */
export function stopRecorder(rec: InstalledRecorder): Promise<number | null> {
  if (rec.child.exitCode !== null) return Promise.resolve(rec.child.exitCode);
  return new Promise((resolve) => {
    rec.child.once('exit', (code) => resolve(code));
    rec.child.kill('SIGTERM');
  });
}
