// The current recorder Pod template of each node: settings + the recorder ConfigMap's content hash.
import { nodeNameOf, type OwnerReference, type RecorderNode } from '@vigil/crds';
import { configMapHash, desiredPod, templateHashOf } from '../desired/pod.js';
import type { Pod } from '@vigil/kube';
import { nsKey, type ControllerContext } from './context.js';

const NO_OWNER: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: '' };

export class PodTemplates {
  /** The ConfigMap data last hashed (compared by reference: the cache replaces an object that changes) and its hash. */
  #config: { data: Record<string, string> | undefined; hash: string } | undefined;
  /** Each node's template hash under #config's hash: every heartbeat's status pass asks for it. */
  readonly #hashes = new Map<string, string | undefined>();

  constructor(private readonly ctx: ControllerContext) {}

  configHash(): string {
    const data = this.ctx.caches.configMaps.get(nsKey(this.ctx, this.ctx.settings.recorder.configMap))?.data;
    if (this.#config?.data !== data || this.#config === undefined) {
      this.#config = { data, hash: configMapHash(data) };
      this.#hashes.clear();
    }
    return this.#config.hash;
  }

  /** The owner is not part of the template hash: a Pod is never replaced for its owner reference alone. */
  podFor(rn: RecorderNode, owner: OwnerReference = NO_OWNER): Pod {
    return desiredPod(rn, this.ctx.settings, { namespace: this.ctx.namespace, configHash: this.configHash(), owner });
  }

  /** The template hash of the node's Pod (it depends only on the node's name, the settings and the ConfigMap). */
  hashFor(rn: RecorderNode): string | undefined {
    this.configHash();
    const node = nodeNameOf(rn);
    if (!this.#hashes.has(node)) this.#hashes.set(node, templateHashOf(this.podFor(rn)));
    return this.#hashes.get(node);
  }
}
