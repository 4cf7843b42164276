// A KWOK-style fake kubelet: Nodes stay Ready and renew their Leases in kube-node-lease; Pods bound to a Node run and are Ready (or follow a readiness URL).
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { createHash } from 'node:crypto';
import type { ObjectApi } from './object-api.js';
import { nowSeconds } from './object-api.js';
import type { ResourceRegistry } from './resource-registry.js';
import { KubeError } from './status-errors.js';
import { isRecord, type KubeObject, type ResourceType } from './types.js';
import { WorkQueue } from './work-queue.js';

const NODES = '/nodes';
const PODS = '/pods';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const MANAGER = { fieldManager: 'kubelet', subresource: 'status' } as const;
const UNREACHABLE_TAINTS = [
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
];

function ipFor(seed: string, prefix: string): string {
  const h = createHash('sha1').update(seed).digest();
  return `${prefix}.${(h[0] as number) % 250 + 1}.${(h[1] as number) % 250 + 1}`;
}

export class FakeKubelet {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;
  private readonly notReady = new Set<string>();
  private readonly readinessUrls = new Map<string, string>();
  private readonly probeResults = new Map<string, boolean>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly prober: NodeJS.Timeout;
  private probing = false;
  private readonly nodeType: ResourceType;
  private readonly podType: ResourceType;
  private readonly leaseType: ResourceType;

  constructor(private readonly api: ObjectApi, registry: ResourceRegistry, heartbeatSeconds: number) {
    this.nodeType = registry.lookup('', 'v1', 'nodes') as ResourceType;
    this.podType = registry.lookup('', 'v1', 'pods') as ResourceType;
    this.leaseType = registry.lookup('coordination.k8s.io', 'v1', 'leases') as ResourceType;
    this.queue = new WorkQueue((key) => this.reconcile(key), () => undefined);
    this.unsubscribe = api.store.onChange((storageKey, ev) => {
      if (ev.type === 'DELETED') return;
      if (storageKey === NODES) {
        this.queue.add(`node/${ev.object.metadata.name as string}`);
        for (const pod of this.podsOn(ev.object.metadata.name as string)) this.queue.add(`pod/${pod.metadata.namespace as string}/${pod.metadata.name as string}`);
      } else if (storageKey === PODS) this.queue.add(`pod/${ev.object.metadata.namespace as string}/${ev.object.metadata.name as string}`);
    });
    this.heartbeat = setInterval(() => this.renewLeases(), heartbeatSeconds * 1000);
    this.heartbeat.unref();
    this.prober = setInterval(() => void this.probe(), 500);
    this.prober.unref();
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
    clearInterval(this.heartbeat);
    clearInterval(this.prober);
  }

  setNodeReady(nodeName: string, ready: boolean): void {
    if (ready) this.notReady.delete(nodeName);
    else this.notReady.add(nodeName);
    this.queue.add(`node/${nodeName}`);
    for (const pod of this.podsOn(nodeName)) this.queue.add(`pod/${pod.metadata.namespace as string}/${pod.metadata.name as string}`);
    if (ready) this.renewLease(nodeName);
  }

  setPodReadinessUrl(namespace: string, podName: string, url: string | undefined): void {
    const key = `${namespace}/${podName}`;
    if (url === undefined) {
      this.readinessUrls.delete(key);
      this.probeResults.delete(key);
    } else this.readinessUrls.set(key, url);
    this.queue.add(`pod/${key}`);
    if (url !== undefined) void this.probe();
  }

  private podsOn(nodeName: string): KubeObject[] {
    return this.api.store.list(PODS).filter((p) => isRecord(p.spec) && p.spec.nodeName === nodeName);
  }

  private reconcile(key: string): void {
    const [kind, a, b] = key.split('/');
    if (kind === 'node') this.reconcileNode(a as string);
    else this.reconcilePod(a as string, b as string);
  }

  private reconcileNode(name: string): void {
    const node = this.api.find(this.nodeType, undefined, name);
    if (node === undefined || node.metadata.deletionTimestamp !== undefined) return;
    const ready = !this.notReady.has(name);
    const status = isRecord(node.status) ? node.status : {};
    const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isRecord) : [];
    const current = conditions.find((c) => c.type === 'Ready');
    const wanted = ready ? 'True' : 'Unknown';
    const spec = isRecord(node.spec) ? node.spec : {};
    const taints = (Array.isArray(spec.taints) ? spec.taints.filter(isRecord) : []).filter((t) => t.key !== 'node.kubernetes.io/unreachable');
    const hasUnreachable = Array.isArray(spec.taints) && spec.taints.some((t) => isRecord(t) && t.key === 'node.kubernetes.io/unreachable');
    if (current?.status !== wanted || status.nodeInfo === undefined) {
      const now = nowSeconds();
      const reason = (type: string, ok: string): Record<string, unknown> => ({ type, status: ready ? ok : 'Unknown', lastHeartbeatTime: now, lastTransitionTime: now, reason: ready ? `Kubelet${ok === 'True' ? 'Ready' : 'HasSufficient' + type.replace('Pressure', '')}` : 'NodeStatusUnknown', message: ready ? (type === 'Ready' ? 'kubelet is posting ready status' : `kubelet has no ${type}`) : 'Kubelet stopped posting node status.' });
      this.api.patch(this.nodeType, undefined, name, 'merge', {
        status: {
          conditions: [reason('MemoryPressure', 'False'), reason('DiskPressure', 'False'), reason('PIDPressure', 'False'), reason('Ready', 'True')],
          addresses: [{ type: 'InternalIP', address: ipFor(name, '10.0') }, { type: 'Hostname', address: name }],
          capacity: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'ephemeral-storage': '100Gi' },
          nodeInfo: { kubeletVersion: 'v1.35.2', kubeProxyVersion: 'v1.35.2', containerRuntimeVersion: 'fake://1.0.0', operatingSystem: 'linux', architecture: 'amd64', osImage: 'Vigil kube emulator', kernelVersion: '6.1.0', machineID: '', systemUUID: '', bootID: '' },
          daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        },
      }, MANAGER);
    }
    if (ready === hasUnreachable) {
      const nextTaints = ready ? taints : [...taints, ...UNREACHABLE_TAINTS.map((t) => ({ ...t, timeAdded: nowSeconds() }))];
      this.api.patch(this.nodeType, undefined, name, 'merge', { spec: { taints: nextTaints.length > 0 ? nextTaints : null } }, { fieldManager: 'node-lifecycle-controller' });
    }
    if (ready && this.api.store.get('coordination.k8s.io/leases', NODE_LEASE_NAMESPACE, name) === undefined) this.renewLease(name);
  }

  private renewLeases(): void {
    for (const node of this.api.store.list(NODES)) {
      const name = node.metadata.name as string;
      if (!this.notReady.has(name)) this.renewLease(name);
    }
  }

  private renewLease(nodeName: string): void {
    const node = this.api.find(this.nodeType, undefined, nodeName);
    if (node === undefined || this.api.store.get('/namespaces', undefined, NODE_LEASE_NAMESPACE) === undefined) return;
    const renewTime = new Date().toISOString().replace('Z', '000Z');
    const existing = this.api.find(this.leaseType, NODE_LEASE_NAMESPACE, nodeName);
    try {
      if (existing === undefined) {
        this.api.create(this.leaseType, NODE_LEASE_NAMESPACE, {
          metadata: { name: nodeName, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid as string }] },
          spec: { holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime },
        }, { fieldManager: 'kubelet' });
      } else {
        this.api.patch(this.leaseType, NODE_LEASE_NAMESPACE, nodeName, 'merge', { spec: { renewTime } }, { fieldManager: 'kubelet' });
      }
    } catch (err) {
      if (!(err instanceof KubeError)) throw err;
    }
  }

  private reconcilePod(namespace: string, name: string): void {
    const pod = this.api.find(this.podType, namespace, name);
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return;
    const spec = isRecord(pod.spec) ? pod.spec : {};
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : undefined;
    if (nodeName === undefined || this.api.find(this.nodeType, undefined, nodeName) === undefined) return;
    const key = `${namespace}/${name}`;
    const nodeReady = !this.notReady.has(nodeName);
    const ready = nodeReady && (this.readinessUrls.has(key) ? this.probeResults.get(key) === true : true);
    const status = isRecord(pod.status) ? pod.status : {};
    const readyNow = Array.isArray(status.conditions) && status.conditions.some((c) => isRecord(c) && c.type === 'Ready' && c.status === (ready ? 'True' : 'False'));
    if (status.phase === 'Running' && readyNow) return;
    const now = nowSeconds();
    const started = typeof status.startTime === 'string' ? status.startTime : now;
    const containers = Array.isArray(spec.containers) ? spec.containers.filter(isRecord) : [];
    const flag = ready ? 'True' : 'False';
    this.api.patch(this.podType, namespace, name, 'merge', {
      status: {
        phase: 'Running',
        conditions: [
          { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: started },
          { type: 'Initialized', status: 'True', lastTransitionTime: started },
          { type: 'Ready', status: flag, lastTransitionTime: now, ...(ready ? {} : { reason: 'ContainersNotReady', message: 'containers with unready status' }) },
          { type: 'ContainersReady', status: flag, lastTransitionTime: now },
          { type: 'PodScheduled', status: 'True', lastTransitionTime: started },
        ],
        hostIP: ipFor(nodeName, '10.0'),
        hostIPs: [{ ip: ipFor(nodeName, '10.0') }],
        podIP: typeof status.podIP === 'string' ? status.podIP : ipFor(`${key}/${pod.metadata.uid as string}`, '10.244'),
        startTime: started,
        containerStatuses: containers.map((c) => ({
          name: c.name,
          image: c.image,
          imageID: `fake://${String(c.image)}`,
          containerID: `fake://${createHash('sha1').update(`${pod.metadata.uid as string}/${String(c.name)}`).digest('hex')}`,
          ready,
          started: true,
          restartCount: 0,
          state: { running: { startedAt: started } },
        })),
      },
    }, MANAGER);
  }

  private async probe(): Promise<void> {
    if (this.probing || this.readinessUrls.size === 0) return;
    this.probing = true;
    try {
      await Promise.all([...this.readinessUrls.entries()].map(async ([key, url]) => {
        let ok = false;
        try {
          ok = await probeStatusOk(url);
        } catch {
          ok = false;
        }
        if (this.readinessUrls.get(key) !== url) return;
        if (this.probeResults.get(key) !== ok) {
          this.probeResults.set(key, ok);
          this.queue.add(`pod/${key}`);
        }
      }));
    } finally {
      this.probing = false;
    }
  }
}

/**
 * One HTTP(S) GET as the kubelet probes: 2xx is success; over HTTPS the certificate is not checked (the kubelet's
 * httpGet probes skip verification, so a Pod serving a certificate nobody trusts yet still passes).
 */
function probeStatusOk(url: string): Promise<boolean> {
  const get = url.startsWith('https:') ? httpsGet : httpGet;
  return new Promise((resolve, reject) => {
    const req = get(url, { timeout: 2000, ...(url.startsWith('https:') ? { rejectUnauthorized: false } : {}) }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', reject);
  });
}
