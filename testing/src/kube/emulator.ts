// The Kubernetes API emulator Vigil's cluster tests run against (real REST and watch for kubectl, helm and client-node): the public entry of kube/emulator/.
export { startKubeEmulator } from './emulator/instance.js';
export type { KubeEmulator, KubeEmulatorFaults, KubeEmulatorKubelet, KubeEmulatorOptions } from './emulator/instance.js';
export { runHelm, runKubectl } from './cli-runner.js';
export type { CliOptions, CommandResult } from './cli-runner.js';
