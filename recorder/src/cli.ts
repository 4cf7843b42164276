// Command-line arguments of vigil-recorder.
import { DEFAULT_CONF_DIR, DEFAULT_CONFIG_FILE } from './config/load.js';
import { LOG_FORMATS, type LogFormat } from '@vigil/kube/log-format';

export interface CliOptions {
  command: 'run' | 'help' | 'version' | 'license-verify';
  configFile: string;
  confDir: string | undefined;
  /** `license verify FILE`: the file, and the key given with --public-key (else the configuration's). */
  licenseFile?: string;
  publicKey?: string;
  /** --log-format; undefined: pretty on a terminal, JSON otherwise. */
  logFormat?: LogFormat;
}

export const USAGE = `usage: vigil-recorder [--config FILE] [--conf-dir DIR] [--log-format json|pretty]
       vigil-recorder license verify FILE [--public-key KEY] [--config FILE]
       vigil-recorder --version | --help

  --config FILE    configuration file (default ${DEFAULT_CONFIG_FILE}, or $VIGIL_CONFIG)
  --conf-dir DIR   folder of *.yaml files merged over it in lexical order
                   (default ${DEFAULT_CONF_DIR} with the default config, or $VIGIL_CONF_DIR)
  --log-format F   json (one JSON object a line) or pretty (time, level, camera, message);
                   default pretty when stdout is a terminal, else json. log_file is always json
  --public-key KEY license verify: the Ed25519 public key (base64 of the raw 32 bytes, or PEM);
                   default license.public_key of the configuration`;

export class UsageError extends Error {}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  let configFile = env['VIGIL_CONFIG'];
  let confDir = env['VIGIL_CONF_DIR'];
  let command: CliOptions['command'] = 'run';
  let licenseFile: string | undefined;
  let publicKey: string | undefined;
  let logFormat: LogFormat | undefined;
  let first = 0;
  if (argv[0] === 'license') {
    const file = argv[2];
    if (argv[1] !== 'verify' || file === undefined || file.startsWith('--')) throw new UsageError('usage: vigil-recorder license verify FILE [--public-key KEY]');
    command = 'license-verify';
    licenseFile = file;
    first = 3;
  }
  for (let i = first; i < argv.length; i++) {
    const arg = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    if (arg === '--config') configFile = value();
    else if (arg.startsWith('--config=')) configFile = arg.slice('--config='.length);
    else if (arg === '--conf-dir') confDir = value();
    else if (arg.startsWith('--conf-dir=')) confDir = arg.slice('--conf-dir='.length);
    else if (arg === '--log-format' || arg.startsWith('--log-format=')) logFormat = parseLogFormat(arg === '--log-format' ? value() : arg.slice('--log-format='.length));
    else if (arg === '--help' || arg === '-h') command = 'help';
    else if (arg === '--version') command = 'version';
    else if (arg === '--public-key' && command === 'license-verify') publicKey = value();
    else throw new UsageError(`unknown argument ${arg}`);
  }
  if (confDir === undefined && configFile === undefined) confDir = DEFAULT_CONF_DIR;
  return {
    command,
    configFile: configFile ?? DEFAULT_CONFIG_FILE,
    confDir,
    ...(licenseFile === undefined ? {} : { licenseFile }),
    ...(publicKey === undefined ? {} : { publicKey }),
    ...(logFormat === undefined ? {} : { logFormat }),
  };
}

function parseLogFormat(value: string): LogFormat {
  const format = LOG_FORMATS.find((f) => f === value);
  if (format === undefined) throw new UsageError(`--log-format must be ${LOG_FORMATS.join(' or ')} (got "${value}")`);
  return format;
}
