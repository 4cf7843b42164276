// Runs the real kubectl and helm against a cluster's kubeconfig, with a private HOME so discovery caches and helm state stay apart.
import { join } from 'node:path';
import { runCommand, type CommandResult } from '../command.js';
import { helmPath, kubectlPath } from './tools.js';

export type { CommandResult };

export interface CliOptions {
  /** None: no cluster (helm template, helm lint). */
  kubeconfig?: string;
  /** HOME for the command (kubectl's cache, helm's config); a directory the caller owns. */
  home: string;
  input?: string;
  timeoutMs?: number;
}

function environment(o: CliOptions): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: o.home,
    ...(o.kubeconfig === undefined ? {} : { KUBECONFIG: o.kubeconfig }),
    HELM_CACHE_HOME: join(o.home, '.cache/helm'),
    HELM_CONFIG_HOME: join(o.home, '.config/helm'),
    HELM_DATA_HOME: join(o.home, '.local/share/helm'),
  };
}

function run(file: string, args: string[], o: CliOptions): Promise<CommandResult> {
  return runCommand(file, args, { env: environment(o), timeoutMs: o.timeoutMs ?? 90_000, ...(o.input === undefined ? {} : { input: o.input }) });
}

/** kubectl 1.35 with `args`; never throws for a non-zero exit (look at `code`). */
export function runKubectl(args: string[], o: CliOptions): Promise<CommandResult> {
  return run(kubectlPath(), args, o);
}

/** helm 4 with `args`; never throws for a non-zero exit (look at `code`). */
export function runHelm(args: string[], o: CliOptions): Promise<CommandResult> {
  return run(helmPath(), args, { ...o, timeoutMs: o.timeoutMs ?? 180_000 });
}
