// The deb and rpm of a plain server, as the spec's operational facts describe them: built by scripts/package.sh, read
// back with dpkg-deb and rpm, installed into a throw-away copy of this machine with their real scripts, run with a real
// RTSP camera over HTTPS with the certificate the install made, upgraded over a changed config.yaml, removed and purged.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:tls';
import { parse } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@vigil/testing/net';
import { startRtspCamera } from '@vigil/testing/rtsp-camera';
import { runCommand, ok } from '@vigil/testing/command';
import { waitUntil } from '@vigil/testing/processes';
import { canMakeThrowawayRoot, ThrowawayRoot } from './support/throwaway-root.js';
import {
  AS_VIGIL, buildPackages, closedSegments, debControl, debPaths, nextPatch, PACKAGED_CERT, PACKAGED_KEY, readiness, REPO_VERSION, rpmQuery,
  startInstalledRecorder, stopRecorder, testConfig, waitReady, type BuiltPackages,
} from './support/packages.js';

let out = '';
let current: BuiltPackages;
/** The next version's packages, for the upgrade tests: built while the tests before them read and install the current ones. */
let upgradeBuild: Promise<BuiltPackages> | undefined;
const noRoot = await canMakeThrowawayRoot();
const noAnalyze = (await runCommand('systemd-analyze', ['--version'])).code === 0 ? undefined : 'systemd-analyze is not installed (Debian package systemd): the unit is not verified';

before(async () => {
  out = await mkdtemp(join(tmpdir(), 'vigil-packages-'));
  current = await buildPackages(REPO_VERSION, out);
  if (noRoot === undefined) {
    upgradeBuild = buildPackages(nextPatch(REPO_VERSION), out);
    upgradeBuild.catch(() => undefined); // awaited (and its failure reported) by the upgrade tests
  }
}, { timeout: 600_000 });
after(async () => {
  await upgradeBuild?.catch(() => undefined);
  await rm(out, { recursive: true, force: true });
});

/** The upgrade's packages (the build started in before()). */
function upgradePackages(): Promise<BuiltPackages> {
  if (upgradeBuild === undefined) throw new Error('the upgrade packages are built only when the install tests run');
  return upgradeBuild;
}

const DEV_ONLY = ['typescript', 'esbuild', 'playwright-core', 'eslint', '@vigil/testing', '@aws-cdk/lambda-layer-kubectl-v35', '@seriousme/openapi-schema-validator'];
const STATE_DIRS = ['/var/lib/vigil', '/var/lib/vigil/recordings', '/var/log/vigil'];

test('npm run package names the files by version and architecture', () => {
  assert.equal(current.deb, join(out, `vigil_${REPO_VERSION}_amd64.deb`));
  assert.equal(current.rpm, join(out, `vigil-${REPO_VERSION}-1.x86_64.rpm`));
});

test('the deb: control fields, config.yaml as its only conffile, the tree under /usr/lib/vigil with production dependencies only', async () => {
  const control = await debControl(current.deb);
  assert.equal(control['Package'], 'vigil');
  assert.equal(control['Version'], REPO_VERSION);
  assert.equal(control['Architecture'], 'amd64');
  assert.match(control['Depends'] ?? '', /(^|, )ffmpeg(,|$)/);
  assert.match(control['Depends'] ?? '', /(^|, )openssl(,|$)/, 'postinst makes the API certificate with openssl');
  const conffiles = ok(await runCommand('dpkg-deb', ['--info', current.deb, 'conffiles']), 'dpkg-deb --info conffiles').trim();
  assert.equal(conffiles, '/etc/vigil/config.yaml');

  const paths = new Set(await debPaths(current.deb));
  for (const path of ['/usr/bin/vigil-recorder', '/usr/bin/vigil-operator', '/usr/lib/systemd/system/vigil.service', '/etc/vigil/config.yaml', '/etc/vigil/conf.d',
    '/usr/lib/vigil/runtime/node', '/usr/lib/vigil/app/recorder/dist/src/main.js', '/usr/lib/vigil/app/recorder/dist/web/index.html', '/usr/lib/vigil/app/node_modules/fastify/package.json',
    '/usr/share/doc/vigil/operations.md', '/usr/share/doc/vigil/copyright', '/usr/share/doc/vigil/runbooks.md',
    // The alerts and the dashboard of monitoring/tools (docs/operations.md, "Alerts and dashboard").
    '/usr/share/vigil/prometheus/vigil-rules.yaml', '/usr/share/vigil/grafana/vigil-dashboard.json',
    // client-node's KubeConfig alone, bundled by the build (kube/scripts/bundle-kubeconfig.mjs): without it the operator
    // still starts, loading all of client-node (about 1 CPU-second and 55 MB more).
    '/usr/lib/vigil/app/kube/dist/src/vendor/kubeconfig.js']) {
    assert.ok(paths.has(path), `the deb installs ${path}`);
  }
  for (const dev of DEV_ONLY) assert.ok(!paths.has(`/usr/lib/vigil/app/node_modules/${dev}`), `no development package ${dev}`);
  assert.ok(![...paths].some((p) => p.startsWith('/usr/lib/vigil/app/testing') || p.includes('/dist/test/')), 'no tests or test support');
  assert.deepEqual([...paths].filter((p) => p.startsWith('/usr/lib/vigil/app/node_modules/') && /\.d\.[cm]?ts$|\.[cm]?js\.map$/.test(p)).slice(0, 5), [], 'no type declarations or source maps of the dependencies');
  // The state directories are made by postinst (owned by vigil); shipped in the deb they would be root's.
  for (const dir of STATE_DIRS) assert.ok(!paths.has(dir), `${dir} is not in the deb`);
});

test('the rpm: the same tree, config.yaml as %config(noreplace), owned state directories, ffmpeg and openssl required', async () => {
  assert.equal((await rpmQuery(current.rpm, '--qf', '%{NAME} %{VERSION} %{RELEASE} %{ARCH}')).trim(), `vigil ${REPO_VERSION} 1 x86_64`);
  assert.match(await rpmQuery(current.rpm, '--requires'), /^ffmpeg$/m);
  assert.match(await rpmQuery(current.rpm, '--requires'), /^openssl$/m, '%post makes the API certificate with openssl');
  assert.equal((await rpmQuery(current.rpm, '--configfiles')).trim(), '/etc/vigil/config.yaml');
  const flags = await rpmQuery(current.rpm, '--qf', '[%{FILEFLAGS:fflags} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEMODES:octal} %{FILENAMES}\n]');
  assert.match(flags, /^cn root:vigil 100640 \/etc\/vigil\/config\.yaml$/m, 'noreplace, readable by the vigil group only');
  for (const dir of STATE_DIRS) assert.match(flags, new RegExp(`^ vigil:vigil 40750 ${dir}$`, 'm'), `${dir} is vigil's`);

  const rpmPaths = new Set((await rpmQuery(current.rpm, '--list')).trim().split('\n'));
  const debOnly = (await debPaths(current.deb)).filter((p) => !rpmPaths.has(p) && p !== '/etc' && p !== '/usr' && !/^\/usr\/(bin|lib|share|share\/doc|lib\/systemd|lib\/systemd\/system)$/.test(p));
  assert.deepEqual(debOnly, [], 'everything the deb installs, the rpm installs too');
});

test('the unit loads cleanly where it is installed, runs as vigil with the file system read-only but for its directories, and logs to the journal', { skip: noRoot ?? noAnalyze, timeout: 120_000 }, async (t) => {
  const root = await ThrowawayRoot.create(t);
  await root.copyIn(current.deb, '/root/current.deb');
  await mustRun(root, ['dpkg', '-i', '/root/current.deb']);
  const verify = await root.run(['systemd-analyze', 'verify', '/usr/lib/systemd/system/vigil.service']);
  assert.equal(verify.code, 0, verify.stderr);
  assert.equal((verify.stdout + verify.stderr).trim(), '', 'systemd-analyze verify has nothing to say');
  const security = await root.run(['systemd-analyze', 'security', '--offline=true', '/usr/lib/systemd/system/vigil.service']);
  const exposure = Number(/Overall exposure level for vigil\.service: ([\d.]+)/.exec(security.stdout)?.[1]);
  assert.ok(exposure <= 4, `exposure ${exposure} is "OK" or better:\n${security.stdout.slice(-600)}`);

  const unit = unitSettings(await root.readFile('/usr/lib/systemd/system/vigil.service'));
  assert.equal(unit.get('User'), 'vigil');
  assert.equal(unit.get('ProtectSystem'), 'strict');
  assert.deepEqual(unit.get('ReadWritePaths')?.split(' ').sort(), ['/var/lib/vigil', '/var/log/vigil']);
  assert.equal(unit.get('NoNewPrivileges'), 'true');
  assert.equal(unit.get('Restart'), 'on-failure');
  assert.equal(unit.get('RestartPreventExitStatus'), '2', 'a refused configuration is not restarted in a loop');
  assert.ok(Number(unit.get('TimeoutStopSec')) > 10, 'systemd waits longer than the recorder’s 10 s close');
  for (const stream of ['StandardOutput', 'StandardError']) assert.ok(['journal', undefined].includes(unit.get(stream)), `${stream} reaches the journal`);
  assert.equal(unit.get('ExecStart'), '/usr/bin/vigil-recorder --config /etc/vigil/config.yaml --conf-dir /etc/vigil/conf.d');
});

test('deb: install makes a self-signed certificate and enables without starting; the installed recorder records and answers HTTPS; an upgrade keeps the changed config and the certificate and restarts nothing; remove and purge', { skip: noRoot, timeout: 300_000 }, async (t) => {
  const root = await ThrowawayRoot.create(t);
  await root.copyIn(current.deb, '/root/current.deb');

  await mustRun(root, ['dpkg', '-i', '/root/current.deb']);
  assert.match(await mustRun(root, ['id', 'vigil']), /uid=\d+\(vigil\) gid=\d+\(vigil\)/);
  assert.deepEqual(activating(await root.takeSystemctlCalls()), ['enable vigil.service'], 'enabled on the first install, never started');
  assert.equal(await root.stat('/etc/systemd/system/multi-user.target.wants/vigil.service', '%N'), "'/etc/systemd/system/multi-user.target.wants/vigil.service' -> '/lib/systemd/system/vigil.service'");
  assert.equal(await root.stat('/etc/vigil/config.yaml'), 'root:vigil 640');
  assert.equal(await root.stat('/etc/vigil'), 'root:vigil 750');
  for (const dir of STATE_DIRS) assert.equal(await root.stat(dir), 'vigil:vigil 750', dir);
  const made = await assertPackagedCertificate(root);
  assert.deepEqual((parse(await root.readFile('/etc/vigil/config.yaml')) as { tls: unknown }).tls, { cert_file: PACKAGED_CERT, key_file: PACKAGED_KEY }, 'the packaged configuration serves HTTPS with it');

  // The first start with the packaged configuration fails and names the key to fix, on stderr (the unit's journal).
  const unedited = await root.run([...AS_VIGIL, '/usr/bin/vigil-recorder', '--config', '/etc/vigil/config.yaml', '--conf-dir', '/etc/vigil/conf.d']);
  assert.equal(unedited.code, 2);
  assert.match(unedited.stderr, /auth\.tokens/);

  const camera = await startRtspCamera({ width: 320, height: 240, fps: 10, gop: 10, bitrateKbps: 200 });
  t.after(() => camera.stop());
  const port = await freePort();
  const config = testConfig(port, camera.urlWithCredentials());
  await root.writeFile('/etc/vigil/config.yaml', config);

  const first = startInstalledRecorder(root, port, made.pem);
  await waitReady(first, current.version);
  await waitUntil(async () => (await closedSegments(first, 'gate')).length >= 2, 30_000, 'two closed segments');
  assert.ok(!first.output().includes('secret'), 'the camera password is not logged');

  // It answers HTTPS with the certificate the install made (curl trusting that certificate alone), and plain HTTP with a 400.
  assert.equal(await servedSerial(port), made.serial, 'the served certificate is the one in /etc/vigil/tls');
  const caFile = join(out, `deb-${made.serial}.crt`);
  await writeFile(caFile, made.pem);
  const curl = await runCommand('curl', ['-sS', '--fail', '--cacert', caFile, `https://localhost:${port}/api/health/ready`]);
  assert.equal(curl.code, 0, curl.stderr);
  assert.match(curl.stdout, /"status":"ready"/);
  const plain = await runCommand('curl', ['-sS', `http://127.0.0.1:${port}/api/health/ready`]);
  assert.match(plain.stdout, /"code":"https_required"/);

  const upgrade = await upgradePackages();
  await root.copyIn(upgrade.deb, '/root/upgrade.deb');
  const upgraded = await root.run(['dpkg', '--force-confdef', '--force-confold', '-i', '/root/upgrade.deb']);
  assert.equal(upgraded.code, 0, upgraded.stderr);
  assert.equal(await root.readFile('/etc/vigil/config.yaml'), config, 'the changed config.yaml stays');
  assert.match(await root.readFile('/etc/vigil/config.yaml.dpkg-dist'), new RegExp(`as packaged with vigil ${upgrade.version.replace(/\./g, '\\.')}`), 'the new default lands beside it');
  assert.deepEqual(activating(await root.takeSystemctlCalls()), [], 'an upgrade starts, stops and restarts nothing');
  assert.equal(first.child.exitCode, null, 'the running recorder keeps running');
  assert.equal((await readiness(first)).version, current.version, '…with the old version until the restart');
  assert.equal(await mustRun(root, ['/usr/bin/vigil-recorder', '--version']), `${upgrade.version}\n`);
  assert.equal(await root.readFile(PACKAGED_CERT), made.pem, 'an upgrade keeps the certificate');

  const before = await closedSegments(first, 'gate');
  assert.equal(await stopRecorder(first), 0, 'a clean stop');
  const second = startInstalledRecorder(root, port, made.pem);
  await waitReady(second, upgrade.version);
  const afterRestart = await closedSegments(second, 'gate');
  for (const name of before) assert.ok(afterRestart.includes(name), `${name} recorded before the upgrade is still listed`);
  await waitUntil(async () => (await closedSegments(second, 'gate')).length > afterRestart.length, 30_000, 'the new version records');
  assert.equal(await stopRecorder(second), 0);

  await mustRun(root, ['dpkg', '-r', 'vigil']);
  assert.ok((await root.takeSystemctlCalls()).includes('stop vigil.service'), 'remove stops the service');
  assert.ok(!(await root.exists('/usr/lib/vigil')), 'the program is gone');
  assert.equal(await root.readFile('/etc/vigil/config.yaml'), config, 'remove keeps the configuration');
  assert.ok(before.length > 0 && await root.exists(`/var/lib/vigil/recordings/${before[0]}`), 'remove keeps the recordings');

  await mustRun(root, ['dpkg', '--purge', 'vigil']);
  for (const gone of ['/etc/vigil', '/var/log/vigil', '/etc/systemd/system/multi-user.target.wants/vigil.service']) assert.ok(!(await root.exists(gone)), `purge removes ${gone}`);
  assert.ok(await root.exists(`/var/lib/vigil/recordings/${before[0]}`), 'purge never deletes recordings');
  assert.equal((await root.run(['dpkg-statoverride', '--list', '/etc/vigil/config.yaml'])).code, 1, 'purge removes the stat overrides');
});

test('rpm: install makes a self-signed certificate and enables without starting; an upgrade keeps the changed config and the certificate, places .rpmnew and restarts nothing; erase', { skip: noRoot, timeout: 180_000 }, async (t) => {
  const root = await ThrowawayRoot.create(t);
  await root.copyIn(current.rpm, '/root/current.rpm');
  const upgrade = await upgradePackages();
  await root.copyIn(upgrade.rpm, '/root/upgrade.rpm');
  // Debian's rpm database knows nothing of the dpkg-installed ffmpeg and shadow-utils: --nodeps.
  await mustRun(root, ['rpm', '-i', '--nodeps', '/root/current.rpm']);
  assert.match(await mustRun(root, ['id', 'vigil']), /\(vigil\)/);
  assert.deepEqual(activating(await root.takeSystemctlCalls()), ['enable vigil.service'], 'enabled on the first install, never started');
  assert.equal(await root.stat('/etc/vigil/config.yaml'), 'root:vigil 640');
  for (const dir of STATE_DIRS) assert.equal(await root.stat(dir), 'vigil:vigil 750', dir);
  const made = await assertPackagedCertificate(root);
  assert.equal(await mustRun(root, [...AS_VIGIL, '/usr/bin/vigil-recorder', '--version']), `${current.version}\n`);

  const changed = `${await root.readFile('/etc/vigil/config.yaml')}\n# changed by the administrator\n`;
  await root.writeFile('/etc/vigil/config.yaml', changed);
  await root.writeFile('/var/lib/vigil/recordings/kept.mp4', 'an old recording');
  await mustRun(root, ['rpm', '-U', '--nodeps', '/root/upgrade.rpm']);
  assert.equal(await root.readFile('/etc/vigil/config.yaml'), changed, 'the changed config.yaml stays');
  assert.match(await root.readFile('/etc/vigil/config.yaml.rpmnew'), new RegExp(`as packaged with vigil ${upgrade.version.replace(/\./g, '\\.')}`));
  assert.deepEqual(activating(await root.takeSystemctlCalls()), [], 'an upgrade starts, stops and restarts nothing');
  for (const dir of STATE_DIRS) assert.equal(await root.stat(dir), 'vigil:vigil 750', `${dir} after the upgrade`);
  assert.equal(await root.readFile(PACKAGED_CERT), made.pem, 'an upgrade keeps the certificate');
  assert.equal(await mustRun(root, ['/usr/bin/vigil-recorder', '--version']), `${upgrade.version}\n`);

  await mustRun(root, ['rpm', '-e', '--nodeps', 'vigil']);
  const calls = await root.takeSystemctlCalls();
  assert.ok(calls.includes('stop vigil.service') && calls.some((c) => /disable vigil\.service/.test(c)), `erase stops and disables: ${calls.join('; ')}`);
  assert.ok(!(await root.exists('/usr/lib/vigil')));
  assert.equal(await root.readFile('/etc/vigil/config.yaml.rpmsave'), changed, 'the changed configuration is kept as .rpmsave');
  assert.equal(await root.readFile('/var/lib/vigil/recordings/kept.mp4'), 'an old recording', 'erase never deletes recordings');
  assert.equal(await root.readFile(PACKAGED_CERT), made.pem, 'erase keeps the certificate and key (they are not the package’s files)');
});

/**
 * The certificate the install made: self-signed, for this host and loopback, ten years, the key readable by the vigil
 * group only, and a key that is the certificate's (what the recorder checks at start).
 */
async function assertPackagedCertificate(root: ThrowawayRoot): Promise<{ pem: string; serial: string }> {
  assert.equal(await root.stat('/etc/vigil/tls'), 'root:vigil 750');
  assert.equal(await root.stat(PACKAGED_KEY), 'root:vigil 640', 'the key: root and the vigil group only');
  assert.equal(await root.stat(PACKAGED_CERT), 'root:vigil 644');
  const pem = await root.readFile(PACKAGED_CERT);
  const cert = new X509Certificate(pem);
  assert.equal(cert.issuer, cert.subject, 'self-signed');
  assert.ok(cert.verify(cert.publicKey), 'signed by its own key');
  const names = cert.subjectAltName ?? '';
  for (const name of ['DNS:localhost', 'IP Address:127.0.0.1']) assert.ok(names.includes(name), `${name} in ${names}`);
  const years = (new Date(cert.validTo).getTime() - Date.now()) / (365 * 86_400_000);
  assert.ok(years > 9.9 && years < 10.1, `valid ten years (${years.toFixed(2)})`);
  const keyMatches = await root.run(['sh', '-c', `[ "$(openssl pkey -in ${PACKAGED_KEY} -pubout)" = "$(openssl x509 -in ${PACKAGED_CERT} -noout -pubkey)" ]`]);
  assert.equal(keyMatches.code, 0, 'the key is the certificate’s');
  return { pem, serial: cert.serialNumber };
}

/** The serial of the certificate the recorder on loopback `port` serves (no verification: this only reads it). */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(socket.getPeerCertificate().serialNumber);
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** Key=value settings of a unit file (the last one of a key wins, as systemd reads them). */
function unitSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) settings.set(m[1]!, m[2]!);
  }
  return settings;
}

/** The systemctl calls that would start, stop, restart or enable something (daemon-reload only reads unit files). */
function activating(calls: string[]): string[] {
  return calls.map((c) => c.replace(/^--quiet /, '')).filter((c) => !/^daemon-reload\b/.test(c));
}

async function mustRun(root: ThrowawayRoot, argv: string[]): Promise<string> {
  const r = await root.run(argv, { timeoutMs: 120_000 });
  assert.equal(r.code, 0, `${argv.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

