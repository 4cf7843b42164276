// Composition root of vigil-recorder: arguments → configuration → logger → recorder; signals.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { CameraRegistry } from './cameras/registry.js';
import { parseCli, UsageError, USAGE } from './cli.js';
import { ConfigError, loadConfig } from './config/load.js';
import { resolveNodeName } from './config/node-name.js';
import { parseTokensFile } from './config/tokens-file.js';
import type { VigilConfig } from './config/schema.js';
import { createLogger } from './log/logger.js';
import { defaultLogFormat } from '@vigil/kube/log-format';
import { runLicenseVerify } from './license-command.js';
import { WorkDirLockedError } from './process/work-dir-lock.js';
import { startRecorder } from './recorder.js';
import { CertificateError } from './tls/certificate-pair.js';
import { ServingCertificate } from './tls/serving-certificate.js';
import { systemClock } from './util/clock.js';
import { readVersion } from './version.js';

const SHUTDOWN_DEADLINE_MS = 9_000;

function checkStartable(config: VigilConfig): string | undefined {
  if (config.auth.disabled) return undefined;
  const file = config.auth.tokens_file;
  if (file !== undefined) {
    try {
      if (config.auth.tokens.length + parseTokensFile(readFileSync(file, 'utf8')).length === 0) return `auth.tokens_file: ${file} holds no token`;
    } catch (err) {
      return `auth.tokens_file: ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    }
    return undefined;
  }
  if (config.auth.tokens.length === 0) {
    return 'auth.tokens: no token is configured; add one ({name, role, sha256}), point auth.tokens_file at a list of them, or set auth.disabled: true to run without authentication (loopback only)';
  }
  return undefined;
}

export async function main(argv: readonly string[]): Promise<number> {
  let cli;
  try {
    cli = parseCli(argv, process.env);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`vigil-recorder: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (cli.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const version = readVersion();
  if (cli.command === 'version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (cli.command === 'license-verify') return runLicenseVerify(cli);
  const paths = { file: cli.configFile, ...(cli.confDir === undefined ? {} : { confDir: cli.confDir }) };
  let config: VigilConfig;
  try {
    config = await loadConfig(paths, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`vigil-recorder: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const refusal = checkStartable(config);
  if (refusal !== undefined) {
    process.stderr.write(`vigil-recorder: refusing to start: ${refusal}\n`);
    return 2;
  }

  const registry = new CameraRegistry();
  const nodeNameCheck = resolveNodeName(config.nodeName);
  if ((config.database !== undefined || config.cluster.enabled) && nodeNameCheck.from === 'none') {
    const why = config.cluster.enabled ? 'in a cluster the node needs a name to find the cameras assigned to it' : 'with a database configured the node needs a name to find its cameras';
    process.stderr.write(`vigil-recorder: refusing to start: nodeName is empty and the hostname cannot be read; ${why} (set nodeName or VIGIL_NODE_NAME)\n`);
    return 2;
  }
  const format = cli.logFormat ?? defaultLogFormat(process.stdout.isTTY);
  const log = createLogger({ level: config.log_level, format, ...(config.log_file === undefined ? {} : { logFile: config.log_file }), secrets: () => registry.secrets() });
  const node = nodeNameCheck;
  if (node.from === 'hostname') log.info({ node: node.name }, `nodeName is empty; using the hostname "${node.name}" as the node name`);
  else if (node.from === 'nodeName') log.info({ node: node.name }, `node name "${node.name}" from nodeName`);
  else log.warn('nodeName is empty and the hostname cannot be read: this node has no name');
  if (config.auth.disabled) log.warn('authentication is disabled (auth.disabled: true): every caller is admin');

  // A certificate that cannot be served is a configuration to fix (exit 2), found before any camera starts.
  let certificate: ServingCertificate | undefined;
  // A certificate from the CSR API (tls.kubernetes_csr) is the recorder's to obtain: it starts without one.
  if (config.tls?.cert_file !== undefined && config.tls.key_file !== undefined) {
    try {
      certificate = await ServingCertificate.load({ certFile: config.tls.cert_file, keyFile: config.tls.key_file, log, clock: systemClock });
    } catch (err) {
      if (!(err instanceof CertificateError)) throw err;
      process.stderr.write(`vigil-recorder: refusing to start: ${err.message}\n`);
      await new Promise<void>((resolve) => log.flush(() => resolve()));
      return 2;
    }
  }

  const recorder = await startRecorder({ config, nodeName: node.name, log, registry, version, env: process.env, ...(certificate === undefined ? {} : { certificate }) }).catch((err: unknown) => {
    if (err instanceof WorkDirLockedError) log.error({ work_dir: err.workDir, holder: err.holder }, err.message);
    throw err;
  });

  let reloading = Promise.resolve();
  const onHup = (): void => {
    reloading = reloading.then(async () => {
      try {
        const next = await loadConfig(paths, process.env);
        const changes = recorder.reloadCameras(next);
        log.info(changes, 'configuration reloaded');
      } catch (err) {
        log.error({ err: err instanceof Error ? err.message : String(err) }, 'configuration reload failed; keeping the running configuration');
      }
      // The files of `tls` are read again too, whatever became of the configuration (their paths need a restart).
      await recorder.reloadCertificate();
    });
  };
  process.on('SIGHUP', onHup);

  const signal = await Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]);
  process.off('SIGHUP', onHup);
  log.info({ signal: String(signal[0] ?? '') }, 'shutting down: closing open segments');
  const deadline = setTimeout(() => {
    log.error('shutdown took too long; exiting anyway');
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  await recorder.shutdown();
  log.info('stopped');
  await new Promise<void>((resolve) => log.flush(() => resolve()));
  return 0;
}
