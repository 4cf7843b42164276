// Command-line arguments of vigil-recorder.
import { DEFAULT_CONF_DIR, DEFAULT_CONFIG_FILE } from './config/load.js';

export interface CliOptions {
  command: 'run' | 'help' | 'version';
  configFile: string;
  confDir: string | undefined;
}

export const USAGE = `usage: vigil-recorder [--config FILE] [--conf-dir DIR]
       vigil-recorder --version | --help

  --config FILE    configuration file (default ${DEFAULT_CONFIG_FILE}, or $VIGIL_CONFIG)
  --conf-dir DIR   folder of *.yaml files merged over it in lexical order
                   (default ${DEFAULT_CONF_DIR} with the default config, or $VIGIL_CONF_DIR)`;

export class UsageError extends Error {}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions {
  let configFile = env['VIGIL_CONFIG'];
  let confDir = env['VIGIL_CONF_DIR'];
  let command: CliOptions['command'] = 'run';
  for (let i = 0; i < argv.length; i++) {
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
    else if (arg === '--help' || arg === '-h') command = 'help';
    else if (arg === '--version') command = 'version';
    else throw new UsageError(`unknown argument ${arg}`);
  }
  if (confDir === undefined && configFile === undefined) confDir = DEFAULT_CONF_DIR;
  return { command, configFile: configFile ?? DEFAULT_CONFIG_FILE, confDir };
}
