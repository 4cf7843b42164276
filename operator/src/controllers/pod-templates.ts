// The current recorder Pod template of each node: settings + the recorder ConfigMap's content hash.
import type { OwnerReference, RecorderNode } from '@vigil/crds';
import { configMapHash, desiredPod, templateHashOf } from '../desired/pod.js';
import type { Pod } from '@vigil/kube';
import { nsKey, type ControllerContext } from './context.js';

const NO_OWNER: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: '', uid: '' };

export class PodTemplates {
  constructor(private readonly ctx: ControllerContext) {}

  configHash(): string {
    const cm = this.ctx.caches.configMaps.get(nsKey(this.ctx, this.ctx.settings.recorder.configMap));
    return configMapHash(cm?.data);
  }

  /** The owner is not part of the template hash: a Pod is never replaced for its owner reference alone. */
  podFor(rn: RecorderNode, owner: OwnerReference = NO_OWNER): Pod {
    return desiredPod(rn, this.ctx.settings, { namespace: this.ctx.namespace, configHash: this.configHash(), owner });
  }

  hashFor(rn: RecorderNode): string | undefined {
    return templateHashOf(this.podFor(rn));
  }
}
