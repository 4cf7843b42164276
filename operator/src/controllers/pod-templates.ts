// The current recorder Pod template of each node: settings + the recorder ConfigMap's content hash.
import type { RecorderNode } from '@vigil/crds';
import { configMapHash, desiredPod, templateHashOf } from '../desired/pod.js';
import type { Pod } from '@vigil/kube';
import { nsKey, type ControllerContext } from './context.js';

export class PodTemplates {
  constructor(private readonly ctx: ControllerContext) {}

  configHash(): string {
    const cm = this.ctx.caches.configMaps.get(nsKey(this.ctx, this.ctx.settings.recorder.configMap));
    return configMapHash(cm?.data);
  }

  podFor(rn: RecorderNode): Pod {
    return desiredPod(rn, this.ctx.settings, { namespace: this.ctx.namespace, configHash: this.configHash() });
  }

  hashFor(rn: RecorderNode): string | undefined {
    return templateHashOf(this.podFor(rn));
  }
}
