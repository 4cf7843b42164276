// What this node sees of the cluster: Cameras, RecorderNodes, their Secrets and Leases, through list+watch caches that survive API outages.
import type { Logger } from 'pino';
import type { Camera as CameraResource, RecorderNode } from '@vigil/crds';
import { Informer, Resources, type Clock as KubeClock, type KubeClient, type KubeObject, type Lease } from '@vigil/kube';
import type { SecretData } from './camera-from-resource.js';

export interface Secret extends KubeObject {
  data?: Record<string, string>;
}

export class ClusterView {
  readonly cameras: Informer<CameraResource & KubeObject>;
  readonly recorderNodes: Informer<RecorderNode & KubeObject>;
  readonly secrets: Informer<Secret>;
  readonly leases: Informer<Lease>;
  readonly namespace: string;

  constructor(client: KubeClient, namespace: string, log: Logger, clock: KubeClock) {
    this.namespace = namespace;
    const opts = { namespace, minRetryMs: 500, maxRetryMs: 5000 };
    this.cameras = new Informer('cameras', client, Resources.cameras, log, clock, opts);
    this.recorderNodes = new Informer('recordernodes', client, Resources.recorderNodes, log, clock, { minRetryMs: 500, maxRetryMs: 5000 });
    this.secrets = new Informer('secrets', client, Resources.secrets, log, clock, opts);
    this.leases = new Informer('leases', client, Resources.leases, log, clock, opts);
  }

  #all(): Array<Informer<KubeObject>> {
    return [this.cameras, this.recorderNodes, this.secrets, this.leases] as Array<Informer<KubeObject>>;
  }

  /** Calls `fn` after any change of any kind (the key does not matter: readers look at the whole view). */
  onChange(fn: () => void): void {
    for (const informer of this.#all()) informer.onChange(() => fn());
  }

  start(): void {
    for (const informer of this.#all()) informer.start();
  }

  stop(): void {
    for (const informer of this.#all()) informer.stop();
  }

  /** Every cache has listed at least once since start. */
  get synced(): boolean {
    return this.#all().every((i) => i.hasSynced());
  }

  camera(id: string): (CameraResource & KubeObject) | undefined {
    return this.cameras.get(`${this.namespace}/${id}`);
  }

  recorderNode(name: string): (RecorderNode & KubeObject) | undefined {
    return this.recorderNodes.get(name);
  }

  lease(name: string): Lease | undefined {
    return this.leases.get(`${this.namespace}/${name}`);
  }

  /** The Secret's data (base64 values), {} for a Secret without data, undefined when there is no such Secret. */
  secretData(name: string): SecretData | undefined {
    const secret = this.secrets.get(`${this.namespace}/${name}`);
    return secret === undefined ? undefined : (secret.data ?? {});
  }
}
