// The RTSP test camera image of the kind run (kind-test/rtsp-camera.Dockerfile) for the process kubelet: the GStreamer
// fixture testing/fixtures/rtsp_camera.py on loopback, its --port the loopback port of the containerPort it names.
import { fileURLToPath } from 'node:url';
import type { ContainerImage } from '../kubelet/container-images.js';

/** The compiled file lives in testing/dist/src/kube/images/, the fixture in testing/fixtures/. */
const FIXTURE = fileURLToPath(new URL('../../../../fixtures/rtsp_camera.py', import.meta.url));
/** python3-gi is installed for the system python only (as testing/src/rtsp-camera.ts runs the fixture). */
const PYTHON = process.env['VIGIL_TEST_PYTHON'] ?? '/usr/bin/python3';

export function rtspCameraImage(): ContainerImage {
  return {
    entrypoint: [PYTHON, FIXTURE],
    prepare(c) {
      const at = c.args.indexOf('--port');
      const port = at < 0 ? undefined : c.ports.get(Number(c.args[at + 1]));
      if (at >= 0 && port === undefined) throw new Error(`${c.podName}/${c.spec.name}: --port ${c.args[at + 1]} is not a containerPort`);
      const args = at < 0 ? c.args : [...c.args.slice(0, at + 1), String(port), ...c.args.slice(at + 2)];
      return { command: [PYTHON, FIXTURE, ...args], env: { ...c.env, RTSP_BIND_ADDRESS: '127.0.0.1' } };
    },
  };
}
