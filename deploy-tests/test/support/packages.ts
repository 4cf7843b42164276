// The deb and rpm under test: built by scripts/package.sh (what `npm run package` runs), read with dpkg-deb and rpm,
// and the recorder they install started inside a throw-away root.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** A configuration an administrator would write after installing: a token, one camera, the packaged paths. */
export function testConfig(port: number, cameraUrl: string): string {
  const sha256 = createHash('sha256').update(ADMIN_TOKEN).digest('hex');
  return [
    '# edited by the administrator after the install',
    `listen: "127.0.0.1:${port}"`,
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

export interface InstalledRecorder { child: ChildProcess; base: string; output: () => string }

/** Starts /usr/bin/vigil-recorder in the root as the vigil user from /var/lib/vigil, the way the unit does. */
export function startInstalledRecorder(root: ThrowawayRoot, port: number): InstalledRecorder {
  const child = root.spawn([...AS_VIGIL, 'sh', '-c', 'cd /var/lib/vigil && exec /usr/bin/vigil-recorder --config /etc/vigil/config.yaml --conf-dir /etc/vigil/conf.d']);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  return { child, base: `http://127.0.0.1:${port}`, output: () => output };
}

export async function readiness(base: string): Promise<{ status: number; version?: string }> {
  try {
    const res = await fetch(`${base}/api/health/ready`, { signal: AbortSignal.timeout(2_000) });
    const body = (await res.json()) as { version?: string };
    return { status: res.status, ...(body.version === undefined ? {} : { version: body.version }) };
  } catch {
    return { status: 0 };
  }
}

export async function waitReady(rec: InstalledRecorder, version: string): Promise<void> {
  await waitUntil(async () => {
    if (rec.child.exitCode !== null) throw new Error(`the installed recorder exited ${rec.child.exitCode}:\n${rec.output()}`);
    const r = await readiness(rec.base);
    return r.status === 200 && r.version === version;
  }, 30_000, `readiness 200 with version ${version}`);
}

export async function closedSegments(base: string, camera: string): Promise<string[]> {
  const res = await fetch(`${base}/api/archive/${camera}/segments`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const body = (await res.json()) as { archive: Array<{ filename: string; is_open: boolean }> };
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
