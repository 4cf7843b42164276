// The images of the kind run (kind-test/) for the process kubelet: the Vigil image (its operator command and its
// recorder entrypoint) as this checkout's bin/ scripts, and the RTSP test camera image as the GStreamer fixture. Each
// container is adapted to loopback only where a Pod's own network would have differed: the ports it listens on (its
// containerPorts mapped to loopback ports) and the address a recorder advertises (localhost, which the kind values put
// into every node certificate, so the release CA and the name are checked as in kind).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rewriteContainerPaths, type ContainerImage, type ContainerImages, type LocalContainer } from '@vigil/testing/kube/kubelet/container-images';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from './chart.js';

const RECORDER_BIN = join(REPO_ROOT, 'recorder/bin/vigil-recorder.js');
const OPERATOR_BIN = join(REPO_ROOT, 'operator/bin/vigil-operator.js');
const RTSP_CAMERA = join(REPO_ROOT, 'testing/fixtures/rtsp_camera.py');
/** python3-gi is installed for the system python only (as testing/src/rtsp-camera.ts runs the fixture). */
const PYTHON = process.env['VIGIL_TEST_PYTHON'] ?? '/usr/bin/python3';

function mappedPort(c: LocalContainer, containerPort: number): number {
  const port = c.ports.get(containerPort);
  if (port === undefined) throw new Error(`${c.podName}/${c.spec.name} does not declare containerPort ${containerPort}`);
  return port;
}

function namedPort(c: LocalContainer, name: string): number {
  const containerPort = c.spec.ports?.find((p) => p.name === name)?.containerPort;
  if (containerPort === undefined) throw new Error(`${c.podName}/${c.spec.name} has no "${name}" port`);
  return mappedPort(c, containerPort);
}

/** The operator container: `tini -- vigil-operator ARGS`, its --listen on the metrics port's loopback port. */
function operator(c: LocalContainer): { command: string[]; env: Record<string, string> } {
  const args = c.args.map((a) => (a.startsWith('--listen=') ? `--listen=127.0.0.1:${namedPort(c, 'metrics')}` : a));
  return { command: [process.execPath, OPERATOR_BIN, ...args], env: c.env };
}

/** The recorder container: its ConfigMap's configuration with local paths and listeners, advertised as https://localhost:PORT. */
async function recorder(c: LocalContainer, extraConfig: Record<string, unknown>): Promise<{ command: string[]; env: Record<string, string> }> {
  const at = c.args.indexOf('--config');
  const configFile = at >= 0 ? c.args[at + 1] : undefined;
  if (configFile === undefined) throw new Error(`the recorder container of ${c.podName} names no --config`);
  const fromConfigMap = (parse(await readFile(configFile, 'utf8')) ?? {}) as Record<string, unknown>;
  const api = namedPort(c, 'api');
  const config = { ...(rewriteContainerPaths(fromConfigMap, c.mounts) as Record<string, unknown>), ...extraConfig, listen: `127.0.0.1:${api}`, metrics: { listen: `127.0.0.1:${namedPort(c, 'metrics')}` } };
  const localConfig = join(c.dir, 'config.yaml');
  await writeFile(localConfig, stringify(config), { mode: 0o600 });
  const env = { ...c.env };
  const scheme = new URL(env['VIGIL_CLUSTER_ADVERTISE_URL'] ?? 'http://x').protocol;
  env['VIGIL_CLUSTER_ADVERTISE_URL'] = `${scheme}//localhost:${api}`;
  delete env['VIGIL_CLUSTER_PUBLIC_URL'];
  return { command: [process.execPath, RECORDER_BIN, ...c.args.slice(0, at), '--config', localConfig, ...c.args.slice(at + 2)], env };
}

/** The Vigil image: the operator's command, the recorder's entrypoint, and any other command (the init container's shell) as it is. */
export function vigilImage(extraRecorderConfig: Record<string, unknown> = {}): ContainerImage {
  return {
    entrypoint: [process.execPath, RECORDER_BIN],
    prepare(c) {
      if (c.command?.includes('vigil-operator') === true) return operator(c);
      if (c.command !== undefined) return { command: [...c.command, ...c.args], env: c.env };
      return recorder(c, extraRecorderConfig);
    },
  };
}

/** The RTSP test camera image (kind-test/rtsp-camera.Dockerfile): the fixture on loopback, its --port the mapped one. */
export function rtspCameraImage(): ContainerImage {
  return {
    entrypoint: [PYTHON, RTSP_CAMERA],
    prepare(c) {
      const at = c.args.indexOf('--port');
      const args = at < 0 ? c.args : [...c.args.slice(0, at + 1), String(mappedPort(c, Number(c.args[at + 1]))), ...c.args.slice(at + 2)];
      return { command: [PYTHON, RTSP_CAMERA, ...args], env: { ...c.env, RTSP_BIND_ADDRESS: '127.0.0.1' } };
    },
  };
}

/** The kind run's images by the names its values and manifests give them. */
export function kindImages(vigilTag: string): ContainerImages {
  return { [`vigil:${vigilTag}`]: vigilImage(), 'vigil-rtsp-camera:test': rtspCameraImage() };
}
