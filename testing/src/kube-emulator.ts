// The Kubernetes API emulator Vigil's cluster tests run against (real REST and watch for kubectl, helm and client-node): public entry.
export { startKubeEmulator } from './kube/emulator.js';
export type { KubeEmulator, KubeEmulatorFaults, KubeEmulatorKubelet, KubeEmulatorOptions } from './kube/emulator.js';
export { runHelm, runKubectl } from './kube/cli-runner.js';
export type { CliOptions, CommandResult } from './kube/cli-runner.js';
