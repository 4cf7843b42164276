// kube-controller-manager for the tests: the garbage collector, namespace, ServiceAccount and token controllers, and
// the node lifecycle controller with grace periods sized for tests, the workload controllers (Deployments, ReplicaSets,
// StatefulSets, PodDisruptionBudgets: helm --wait reads their status), talking to kube-apiserver as the administrator.
import type { FixtureProcess } from '../../fixture-process.js';
import { GO_TEST_GC, guardedProcess } from './orphan-guard.js';
import type { ControlPlanePki } from './pki.js';

/** Controllers of kube-controller-manager 1.35 (its --help names them all) that have nothing to do here. */
const DISABLED_CONTROLLERS = [
  'certificatesigningrequest-signing-controller', 'certificatesigningrequest-approving-controller',
  'cloud-node-lifecycle-controller', 'node-ipam-controller', 'node-route-controller', 'service-lb-controller',
  'persistentvolume-binder-controller', 'persistentvolume-expander-controller', 'persistentvolume-attach-detach-controller',
  'ephemeral-volume-controller', 'resourceclaim-controller', 'device-taint-eviction-controller', 'selinux-warning-controller',
  'horizontal-pod-autoscaler-controller', 'cronjob-controller', 'ttl-after-finished-controller',
  'resourcequota-controller', 'storage-version-migrator-controller',
];

export interface ControllerManagerOptions {
  binary: string;
  kubeconfig: string;
  pki: ControlPlanePki;
  /** How long a Node may go without a heartbeat before it is marked Unknown (a real cluster: 40 s; default here 20 s). */
  nodeMonitorGracePeriodSeconds?: number;
}

export interface ControllerManager {
  readonly process: FixtureProcess;
  stop(): Promise<void>;
}

/** Starts kube-controller-manager (no port of its own: it serves nothing the tests read). */
export function startControllerManager(o: ControllerManagerOptions): ControllerManager {
  const grace = o.nodeMonitorGracePeriodSeconds ?? 20;
  const proc = guardedProcess(o.binary, [
    `--kubeconfig=${o.kubeconfig}`, `--authentication-kubeconfig=${o.kubeconfig}`, `--authorization-kubeconfig=${o.kubeconfig}`,
    '--leader-elect=false', '--secure-port=0',
    // Everything that runs without a cloud, volumes or a container runtime; the certificate signers are Vigil's own.
    `--controllers=*,${DISABLED_CONTROLLERS.map((c) => `-${c}`).join(',')}`,
    `--service-account-private-key-file=${o.pki.serviceAccountKeyFile}`, `--root-ca-file=${o.pki.caFile}`,
    '--use-service-account-credentials=false',
    '--node-monitor-period=1s', `--node-monitor-grace-period=${grace}s`,
    // Garbage collection and namespace deletion at test speed.
    '--concurrent-gc-syncs=5', '--namespace-sync-period=10s',
    '--v=0',
  ], { env: GO_TEST_GC });
  return { process: proc, stop: () => proc.stop() };
}
