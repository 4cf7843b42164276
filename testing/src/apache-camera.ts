// Test support: Apache httpd (Debian apache2) as a camera serving a JPEG behind Digest and Basic logins, plus open paths.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';

const APACHE = '/usr/sbin/apache2';
const MODULES = '/usr/lib/apache2/modules';
const run = promisify(execFile);

export interface ApacheCameraOptions {
  /** A directory of the test's own (removed by the test). */
  dir: string;
  user: string;
  password: string;
  realm?: string;
  /** AuthDigestNonceLifetime in seconds (Apache's default is 300). */
  nonceLifetimeSeconds?: number;
}

export interface ApacheCamera {
  readonly port: number;
  /** http://127.0.0.1:PORT + path; with credentials when given. */
  url(path: string, creds?: { user: string; password: string }): string;
  /** The JPEG every still path serves. */
  readonly jpeg: Buffer;
  /** Access log lines as `METHOD PATH STATUS`. */
  accessLog(): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Paths: /digest/still.jpg (Digest MD5, qop=auth), /basic/still.jpg (Basic), /open/still.jpg,
 * /open/page.html (HTML), /open/fake.jpg (HTML bytes named .jpg, so served as image/jpeg), /open/big.jpg (11 MiB).
 */
export async function startApacheCamera(opts: ApacheCameraOptions): Promise<ApacheCamera> {
  const realm = opts.realm ?? 'camera';
  const root = join(opts.dir, 'apache');
  const www = join(root, 'www');
  await mkdir(www, { recursive: true });
  const jpegPath = join(www, 'still.jpg');
  await run('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240', '-frames:v', '1', jpegPath]);
  await writeFile(join(www, 'page.html'), '<!doctype html><html><body>camera login</body></html>\n');
  await writeFile(join(www, 'fake.jpg'), '<!doctype html><html><body>not really a picture</body></html>\n');
  // JPEG magic, then zeros: 11 MiB, over the 10 MiB a still may have.
  await writeFile(join(www, 'big.jpg'), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(11 * 1024 * 1024)]));
  const ha1 = createHash('md5').update(`${opts.user}:${realm}:${opts.password}`).digest('hex');
  await writeFile(join(root, 'digest.pw'), `${opts.user}:${realm}:${ha1}\n`);
  const { stdout: basicLine } = await run('htpasswd', ['-nbB', opts.user, opts.password]);
  await writeFile(join(root, 'basic.pw'), basicLine.trim() + '\n');
  // Apache's children run as www-data: they must be able to reach and read everything they serve.
  for (const d of [opts.dir, root, www]) await chmod(d, 0o755);
  for (const f of ['still.jpg', 'page.html', 'fake.jpg', 'big.jpg']) await chmod(join(www, f), 0o644);
  for (const f of ['digest.pw', 'basic.pw']) await chmod(join(root, f), 0o644);

  const port = await freePort();
  const accessLog = join(root, 'access.log');
  const conf = join(root, 'httpd.conf');
  const modules = ['mpm_event', 'authz_core', 'authz_user', 'authn_core', 'authn_file', 'auth_digest', 'auth_basic', 'mime', 'alias'];
  await writeFile(
    conf,
    [
      `ServerRoot ${root}`,
      `Listen 127.0.0.1:${port}`,
      ...modules.map((m) => `LoadModule ${m}_module ${MODULES}/mod_${m}.so`),
      'User www-data',
      'Group www-data',
      'ServerName 127.0.0.1',
      `PidFile ${join(root, 'httpd.pid')}`,
      `ErrorLog ${join(root, 'error.log')}`,
      'LogFormat "%m %U %>s" short',
      `CustomLog ${accessLog} short`,
      'TypesConfig /etc/mime.types',
      'MaxRequestWorkers 50',
      `DocumentRoot ${www}`,
      ...['digest', 'basic', 'open'].map((p) => `Alias /${p} ${www}`),
      `<Directory ${www}>`,
      '  Require all granted',
      '</Directory>',
      '<Location /digest>',
      '  AuthType Digest',
      `  AuthName "${realm}"`,
      '  AuthDigestProvider file',
      `  AuthUserFile ${join(root, 'digest.pw')}`,
      `  AuthDigestNonceLifetime ${opts.nonceLifetimeSeconds ?? 300}`,
      '  Require valid-user',
      '</Location>',
      '<Location /basic>',
      '  AuthType Basic',
      `  AuthName "${realm}"`,
      '  AuthBasicProvider file',
      `  AuthUserFile ${join(root, 'basic.pw')}`,
      '  Require valid-user',
      '</Location>',
      '',
    ].join('\n'),
  );
  const child = spawn(APACHE, ['-f', conf, '-DFOREGROUND'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
  await waitForPort(port, child, () => stderr, root);
  const jpeg = await readFile(jpegPath);

  return {
    port,
    jpeg,
    url: (path, creds) =>
      creds === undefined ? `http://127.0.0.1:${port}${path}` : `http://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}${path}`,
    accessLog: async () => (await readFile(accessLog, 'utf8').catch(() => '')).split('\n').filter((l) => l !== ''),
    stop: () => stopProcess(child),
  };
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string, root: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const errorLog = await readFile(join(root, 'error.log'), 'utf8').catch(() => '');
      throw new Error(`apache2 exited with ${child.exitCode}: ${stderr()} ${errorLog}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`apache2 did not listen on ${port} within 10 s: ${stderr()}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
