// Where the control plane's binaries are: built from upstream by scripts/build-control-plane.sh into a per-machine cache.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The compiled file lives in testing/dist/src/kube/control-plane/. */
const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
}

/**
 * The binaries, from VIGIL_CONTROL_PLANE_DIR or the build script's cache (the script answers at once when they are
 * built; `npm test`'s set-up step builds them first, so a test never waits for a build).
 */
export async function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  let dir = process.env['VIGIL_CONTROL_PLANE_DIR'];
  if (dir === undefined || dir === '') {
    const { stdout } = await promisify(execFile)('bash', [join(REPO_ROOT, 'scripts/build-control-plane.sh')], { maxBuffer: 1 << 20 });
    dir = stdout.trim().split('\n').pop() ?? '';
  }
  return { etcd: join(dir, 'etcd'), kubeApiserver: join(dir, 'kube-apiserver'), kubeControllerManager: join(dir, 'kube-controller-manager') };
}
