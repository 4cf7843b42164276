// The kind run's checks, after run.sh installed the chart and applied the Cameras: recording, segments through a
// port-forward with the 307 followed, a worker stopped (docker stop) and the archive gap, a one-node-at-a-time upgrade.
// The scenario is runKindScenario of @vigil/testing/kube/cluster-scenario, which deploy-tests/test/kind-scenario.test.ts
// also runs on the tests' own control plane; this file gives it kind's ways to stop a node and to run helm.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { kubectlDriver, runKindScenario } from '@vigil/testing/kube/cluster-scenario';

const run = promisify(execFile);
const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run kind-test/run.sh)`);
  return value;
};
const ns = env('VIGIL_KIND_NAMESPACE');
const cluster = env('VIGIL_KIND_CLUSTER');

// run.sh sets NODE_EXTRA_CA_CERTS to the release CA (ConfigMap vigil-ca) when the recorders serve HTTPS.
const driver = kubectlDriver({ kubectl: env('VIGIL_KUBECTL'), namespace: ns, apiService: 'vigil-api', apiPort: 9997, token: env('VIGIL_KIND_TOKEN'), https: process.env.NODE_EXTRA_CA_CERTS !== undefined });

function helmUpgrade() {
  const upgrade = spawn(env('VIGIL_HELM'), ['upgrade', 'vigil', 'helm/vigil', '-n', ns, '--reuse-values', '--set', 'recorder.logLevel=debug', '--wait', '--timeout', '5m'], { stdio: 'inherit' });
  return new Promise((resolve, reject) => upgrade.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`helm upgrade failed (exit ${code})`)))));
}

runKindScenario({
  driver,
  namespace: ns,
  cameras: ['cam-1', 'cam-2', 'cam-3'],
  controlPlaneNode: `${cluster}-control-plane`,
  segmentSeconds: 4,
  maxGapSeconds: 20,
  stopNode: async (node) => {
    await run('docker', ['stop', node]);
  },
  startNode: async (node) => {
    await run('docker', ['start', node]);
  },
  helmUpgrade,
  log: (message) => process.stdout.write(`kind-test: ${message}\n`),
}).then(
  () => driver.close(),
  (err) => {
    driver.close();
    process.stderr.write(`kind-test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
