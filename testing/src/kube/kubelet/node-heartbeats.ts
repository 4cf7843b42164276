// A kubelet's heartbeats for its Node: its Lease in kube-node-lease, renewed every few seconds, and the Node's status
// (Ready, addresses, capacity, node info) when it is not Ready yet and once a minute. Silence them and kube-controller-manager's node lifecycle controller
// marks the Node Unknown and taints it, as it does a dead machine.
import { PatchStrategy, setHeaderOptions, type CoordinationV1Api, type CoreV1Api } from '../client-node.js';
import type { V1Node } from '@kubernetes/client-node';

const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function wholeSeconds(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}

async function postNodeStatus(core: CoreV1Api, node: V1Node, kubeletPort: number): Promise<void> {
  const name = node.metadata?.name ?? '';
  const now = wholeSeconds();
  const condition = (type: string, status: string, reason: string, message: string): object => ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: node.status?.conditions?.find((c) => c.type === type && c.status === status)?.lastTransitionTime ?? now });
  await core.patchNodeStatus({
    name,
    body: {
      status: {
        conditions: [
          condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
          condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
          condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
          condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
        ],
        addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: name }],
        // Where kube-apiserver reaches this kubelet (port-forward).
        daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
        capacity: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
        allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
        nodeInfo: { kubeletVersion: 'v1.35.4', kubeProxyVersion: '', containerRuntimeVersion: 'vigil-process://1', operatingSystem: 'linux', architecture: 'amd64', osImage: 'loopback', kernelVersion: '', machineID: '', systemUUID: '', bootID: '' },
      },
    },
  }, MERGE);
}

/** metav1.MicroTime as kube-apiserver takes it: six digits of fraction (a Date's three are refused with a 400). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

const APPLY = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

/** The Node's Lease in kube-node-lease, made or renewed in one server-side apply. */
async function renewLease(coordination: CoordinationV1Api, node: V1Node): Promise<void> {
  const name = node.metadata?.name ?? '';
  await coordination.patchNamespacedLease({
    name, namespace: NODE_LEASE_NAMESPACE, fieldManager: 'vigil-process-kubelet', force: true,
    body: {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name, namespace: NODE_LEASE_NAMESPACE, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid ?? '' }] },
      spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
    },
  }, APPLY);
}

/** How often a Ready Node's status is posted again when nothing changed (the kubelet's nodeStatusReportFrequency is 5 min). */
const STATUS_REPORT_MS = 60_000;

/**
 * Beats for the Nodes given to beat(), as a kubelet with node leases: the Lease renewed every `intervalMs` (kube-
 * controller-manager judges a Node by it), the status posted at once while the Node is not Ready and otherwise once a
 * minute. At 200 Nodes a status patch with every renewal was 40 more writes a second for the API server.
 */
export class NodeHeartbeats {
  private readonly last = new Map<string, { lease: number; status: number }>();

  constructor(private readonly core: CoreV1Api, private readonly coordination: CoordinationV1Api, private readonly intervalMs: number, private readonly kubeletPort: number) {}

  async beat(node: V1Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    const now = Date.now();
    const last = this.last.get(name) ?? { lease: 0, status: 0 };
    if (!ready || now - last.status >= STATUS_REPORT_MS) {
      await postNodeStatus(this.core, node, this.kubeletPort);
      last.status = now;
    }
    if (!ready || now - last.lease >= this.intervalMs) {
      await renewLease(this.coordination, node);
      last.lease = now;
    }
    this.last.set(name, last);
  }

  /** The next beat of `name` comes at once. */
  forget(name: string): void {
    this.last.delete(name);
  }
}
