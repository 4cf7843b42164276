// The Vigil image for the process kubelet: its recorder entrypoint and its operator command as this checkout's bin/
// scripts. A container is adapted to loopback only where a Pod's own network and filesystem would have differed: the
// configuration file's container paths, the ports it listens on (its containerPorts mapped to loopback ports) and the
// address a recorder advertises, which names its loopback port (a Service name resolves in a cluster, not here).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { rewriteContainerPaths, type ContainerImage, type LocalCommand, type LocalContainer } from '../kubelet/container-images.js';

/** The compiled file lives in testing/dist/src/kube/images/. */
const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));
export const RECORDER_BIN = join(REPO_ROOT, 'recorder/bin/vigil-recorder.js');
const OPERATOR_BIN = join(REPO_ROOT, 'operator/bin/vigil-operator.js');

export interface VigilImageOptions {
  /** Merged over the recorder ConfigMap's configuration (test-sized settings). */
  extraRecorderConfig?: Record<string, unknown>;
  /**
   * The host a recorder advertises with its loopback port: 127.0.0.1 (default), or `localhost` when the recorders
   * serve HTTPS with certificates that name it (tls.extraDnsNames), so a client checks the name as in a cluster.
   */
  advertiseHost?: string;
}

function namedPort(c: LocalContainer, name: string): number {
  const containerPort = c.spec.ports?.find((p) => p.name === name)?.containerPort;
  const port = containerPort === undefined ? undefined : c.ports.get(containerPort);
  if (port === undefined) throw new Error(`${c.podName}/${c.spec.name} has no "${name}" port`);
  return port;
}

/** The chart's operator container (`tini -- vigil-operator ARGS`), its --listen on the metrics port's loopback port. */
function operator(c: LocalContainer): LocalCommand {
  const args = c.args.map((a) => (a.startsWith('--listen=') ? `--listen=127.0.0.1:${namedPort(c, 'metrics')}` : a));
  return { command: [process.execPath, OPERATOR_BIN, ...args], env: c.env };
}

/** The operator's recorder container: its configuration with local paths and listeners, its advertised URL on loopback. */
async function recorder(c: LocalContainer, o: VigilImageOptions): Promise<LocalCommand> {
  const at = c.args.indexOf('--config');
  const configFile = at >= 0 ? c.args[at + 1] : undefined;
  if (configFile === undefined) throw new Error(`the recorder container of ${c.podName} names no --config`);
  const fromConfigMap = (parse(await readFile(configFile, 'utf8')) ?? {}) as Record<string, unknown>;
  const api = namedPort(c, 'api');
  const config = { ...(rewriteContainerPaths(fromConfigMap, c.mounts) as Record<string, unknown>), ...o.extraRecorderConfig, listen: `127.0.0.1:${api}`, metrics: { listen: `127.0.0.1:${namedPort(c, 'metrics')}` } };
  const localConfig = join(c.dir, 'config.yaml');
  await writeFile(localConfig, stringify(config), { mode: 0o600 });
  const args = [...c.args.slice(0, at), '--config', localConfig, ...c.args.slice(at + 2)];
  // The scheme the operator chose, the host and port this Pod is reached at here.
  const env = { ...c.env };
  const scheme = new URL(env['VIGIL_CLUSTER_ADVERTISE_URL'] ?? 'http://x').protocol;
  env['VIGIL_CLUSTER_ADVERTISE_URL'] = `${scheme}//${o.advertiseHost ?? '127.0.0.1'}:${api}`;
  delete env['VIGIL_CLUSTER_PUBLIC_URL'];
  return { command: [process.execPath, RECORDER_BIN, ...args], env };
}

/** The image: the operator's command, the recorder's entrypoint, and any other command (the init container's shell) as it is. */
export function vigilImage(o: VigilImageOptions = {}): ContainerImage {
  return {
    entrypoint: [process.execPath, RECORDER_BIN],
    prepare(c) {
      if (c.command?.includes('vigil-operator') === true) return operator(c);
      if (c.command !== undefined) return { command: [...c.command, ...c.args], env: c.env };
      return recorder(c, o);
    },
  };
}
