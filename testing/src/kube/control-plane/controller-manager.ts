// kube-controller-manager for the tests: the garbage collector, namespace, ServiceAccount and token controllers, and
// the node lifecycle controller with grace periods sized for tests, talking to kube-apiserver as the administrator.
import { FixtureProcess } from '../../fixture-process.js';
import type { ControlPlanePki } from './pki.js';

export interface ControllerManagerOptions {
  binary: string;
  kubeconfig: string;
  pki: ControlPlanePki;
  /** How long a Node may go without a heartbeat before it is marked NotReady (a real cluster: 40 s; default here 10 s). */
  nodeMonitorGracePeriodSeconds?: number;
}

export interface ControllerManager {
  readonly process: FixtureProcess;
  stop(): Promise<void>;
}

/** Starts kube-controller-manager (no port of its own: it serves nothing the tests read). */
export function startControllerManager(o: ControllerManagerOptions): ControllerManager {
  const grace = o.nodeMonitorGracePeriodSeconds ?? 10;
  const proc = new FixtureProcess(o.binary, [
    `--kubeconfig=${o.kubeconfig}`, `--authentication-kubeconfig=${o.kubeconfig}`, `--authorization-kubeconfig=${o.kubeconfig}`,
    '--leader-elect=false', '--secure-port=0',
    // Everything that runs without a cloud, a kubelet or a container runtime; the signers are Vigil's own.
    '--controllers=*,-bootstrapsigner,-tokencleaner,-csrsigning,-csrapproving,-service-lb-controller,-node-ipam-controller,-persistentvolume-binder-controller,-persistentvolume-expander-controller,-attachdetach-controller,-ttl-after-finished-controller,-cronjob-controller,-disruption-controller,-horizontal-pod-autoscaler-controller,-ephemeral-volume-controller,-resourcequota-controller',
    `--service-account-private-key-file=${o.pki.serviceAccountKeyFile}`, `--root-ca-file=${o.pki.caFile}`,
    '--use-service-account-credentials=false',
    '--node-monitor-period=1s', `--node-monitor-grace-period=${grace}s`,
    // Garbage collection and namespace deletion at test speed.
    '--concurrent-gc-syncs=5', '--namespace-sync-period=10s',
    '--v=0',
  ]);
  return { process: proc, stop: () => proc.stop() };
}
