// The recorder's container image for the process kubelet: its entrypoint is this checkout's vigil-recorder, and the
// container it is given (the operator's Pod, paths already made local by the kubelet) is adapted to loopback only
// where a Pod's own network and filesystem would have differed: the configuration file's container paths, the ports it
// listens on (the Pod's containerPorts mapped to loopback ports) and the advertised address that names them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rewriteContainerPaths, type ContainerImage, type LocalContainer } from '@vigil/testing/kube/kubelet/container-images';
import { parse, stringify } from 'yaml';
import { RECORDER_BIN } from './recorder-process.js';

function mappedPort(c: LocalContainer, name: string): number {
  const containerPort = c.spec.ports?.find((p) => p.name === name)?.containerPort;
  const port = containerPort === undefined ? undefined : c.ports.get(containerPort);
  if (port === undefined) throw new Error(`the recorder container of ${c.podName} has no "${name}" port`);
  return port;
}

/** The image; `extraConfig` is merged over the ConfigMap's configuration (test-sized settings). */
export function recorderImage(extraConfig: Record<string, unknown> = {}): ContainerImage {
  const entrypoint = [process.execPath, RECORDER_BIN];
  return {
    entrypoint,
    async prepare(c) {
      // A container with a command of its own (the init container's shell) runs it as it is.
      if (c.command !== undefined) return { command: [...c.command, ...c.args], env: c.env };
      const at = c.args.indexOf('--config');
      const configFile = at >= 0 ? c.args[at + 1] : undefined;
      if (configFile === undefined) throw new Error(`the recorder container of ${c.podName} names no --config`);
      const fromConfigMap = (parse(await readFile(configFile, 'utf8')) ?? {}) as Record<string, unknown>;
      const api = mappedPort(c, 'api');
      const config = { ...(rewriteContainerPaths(fromConfigMap, c.mounts) as Record<string, unknown>), ...extraConfig, listen: `127.0.0.1:${api}`, metrics: { listen: `127.0.0.1:${mappedPort(c, 'metrics')}` } };
      const localConfig = join(c.dir, 'config.yaml');
      await writeFile(localConfig, stringify(config), { mode: 0o600 });
      const args = [...c.args.slice(0, at), '--config', localConfig, ...c.args.slice(at + 2)];
      // The advertised address is this Pod's loopback port (its Service name does not resolve here), with the scheme the operator chose.
      const env = { ...c.env };
      const scheme = new URL(env['VIGIL_CLUSTER_ADVERTISE_URL'] ?? 'http://x').protocol;
      env['VIGIL_CLUSTER_ADVERTISE_URL'] = `${scheme}//127.0.0.1:${api}`;
      delete env['VIGIL_CLUSTER_PUBLIC_URL'];
      return { command: [...entrypoint, ...args], env };
    },
  };
}
