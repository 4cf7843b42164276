// One recorder Pod, one Service and (with a host template) one Ingress per RecorderNode; a changed Pod template is
// rolled one node at a time: the next Pod is replaced only when every rolled Pod is Ready and its node online.
import { nodeLeaseName, nodeNameOf, type RecorderNode } from '@vigil/crds';
import { isNotFound, Resources, type Ingress, type Service, isOnline } from '@vigil/kube';
import { RECORDER_LABEL, recorderName } from '../desired/names.js';
import { isPodReady, templateHashOf } from '../desired/pod.js';
import { desiredIngress, desiredService } from '../desired/service.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { createCached, nsKey, type ControllerContext } from './context.js';
import { identityComplete } from './recorder-identity.js';
import type { PodTemplates } from './pod-templates.js';

const WAIT_MS = 1000;

/** Why node `name` may not be rolled now (another node's roll is unfinished), or undefined when it may. */
export function rollBlocker(ctx: ControllerContext, templates: PodTemplates, name: string): string | undefined {
  const now = ctx.clock.now();
  for (const other of ctx.caches.recorderNodes.list()) {
    const otherName = other.metadata.name ?? '';
    if (otherName === name || other.metadata.deletionTimestamp) continue;
    const pod = ctx.caches.pods.get(nsKey(ctx, recorderName(nodeNameOf(other))));
    if (!pod || pod.metadata.deletionTimestamp) return `the Pod of ${otherName} is being replaced`;
    if (templateHashOf(pod) !== templates.hashFor(other)) continue; // not rolled yet: waits its turn
    if (!isPodReady(pod)) return `the new Pod of ${otherName} is not Ready yet`;
    if (!isOnline(ctx.caches.leases.get(nsKey(ctx, nodeLeaseName(otherName))), now, ctx.nodeSilenceMs)) return `${otherName} is not online yet`;
  }
  return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function ensureService(ctx: ControllerContext, rn: RecorderNode, signal: AbortSignal): Promise<void> {
  const want = desiredService(rn, ctx.settings, ctx.namespace);
  const have = ctx.caches.services.get(nsKey(ctx, want.metadata.name ?? ''));
  if (!have) {
    await createCached(ctx, Resources.services, ctx.caches.services, want, signal);
    return;
  }
  const current = { selector: have.spec?.selector, ports: have.spec?.ports?.map((p) => ({ name: p.name, port: p.port, targetPort: p.targetPort, protocol: p.protocol })), labels: have.metadata.labels };
  const wanted = { selector: want.spec?.selector, ports: want.spec?.ports, labels: want.metadata.labels };
  if (sameJson(current, wanted)) return;
  const next: Service = { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences }, spec: { ...have.spec, selector: want.spec?.selector, ports: want.spec?.ports } };
  ctx.caches.services.upsert(await ctx.client.replace(Resources.services, next, { signal }));
}

async function ensureIngress(ctx: ControllerContext, rn: RecorderNode, signal: AbortSignal): Promise<void> {
  const want = desiredIngress(rn, ctx.settings, ctx.namespace);
  const name = recorderName(nodeNameOf(rn));
  const have = ctx.caches.ingresses.get(nsKey(ctx, name));
  if (!want) {
    if (have && have.metadata.labels?.[RECORDER_LABEL] === name) await ctx.client.delete(Resources.ingresses, ctx.namespace, name, { signal, uid: have.metadata.uid });
    return;
  }
  if (!have) {
    await createCached(ctx, Resources.ingresses, ctx.caches.ingresses, want, signal);
    return;
  }
  if (sameJson({ spec: have.spec, labels: have.metadata.labels }, { spec: want.spec, labels: want.metadata.labels })) return;
  const next: Ingress = { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, ownerReferences: want.metadata.ownerReferences }, spec: want.spec };
  ctx.caches.ingresses.upsert(await ctx.client.replace(Resources.ingresses, next, { signal }));
}

/** The RecorderNode is gone: remove what was made for it (owner references do the same where garbage collection runs). */
async function cleanUp(ctx: ControllerContext, name: string, signal: AbortSignal): Promise<void> {
  const objName = recorderName(name);
  for (const [type, cache] of [[Resources.pods, ctx.caches.pods], [Resources.services, ctx.caches.services], [Resources.ingresses, ctx.caches.ingresses]] as const) {
    const obj = cache.get(nsKey(ctx, objName));
    if (obj && obj.metadata.labels?.[RECORDER_LABEL] === objName && !obj.metadata.deletionTimestamp) {
      await ctx.client.delete(type, ctx.namespace, objName, { signal, uid: obj.metadata.uid });
    }
  }
}

export function reconcileRecorderPodsFor(ctx: ControllerContext, templates: PodTemplates) {
  return async (name: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const rn = ctx.caches.recorderNodes.get(name);
    if (!rn || rn.metadata.deletionTimestamp) return cleanUp(ctx, name, signal);
    await ensureService(ctx, rn, signal);
    await ensureIngress(ctx, rn, signal);
    const want = templates.podFor(rn);
    const podName = want.metadata.name ?? '';
    const have = ctx.caches.pods.get(nsKey(ctx, podName));
    // The API server refuses a Pod whose ServiceAccount does not exist, and its recorder needs its Role and bindings
    // from its first request: the Pod waits for the whole identity (recorder-identity.ts makes it).
    if (!have && !identityComplete(ctx, rn)) return { requeueAfterMs: WAIT_MS };
    if (!have) {
      if (!(await createCached(ctx, Resources.pods, ctx.caches.pods, want, signal))) return { requeueAfterMs: WAIT_MS };
      ctx.log.info({ node: name, pod: podName, hash: templateHashOf(want) }, 'recorder Pod created');
      return;
    }
    if (have.metadata.deletionTimestamp) return { requeueAfterMs: WAIT_MS };
    if (templateHashOf(have) === templateHashOf(want)) return;
    const blocker = rollBlocker(ctx, templates, name);
    if (blocker) {
      ctx.log.debug({ node: name, blocker }, 'template change waits');
      return { requeueAfterMs: 2 * WAIT_MS };
    }
    ctx.events.normal(rn, 'Rolling', `replacing Pod ${podName}: template ${templateHashOf(have) ?? '(none)'} → ${templateHashOf(want)}`);
    try {
      await ctx.client.delete(Resources.pods, ctx.namespace, podName, { signal, uid: have.metadata.uid });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    // Mark it gone from the rolling gate's view until the watch says what happened.
    ctx.caches.pods.upsert({ ...have, metadata: { ...have.metadata, deletionTimestamp: new Date(ctx.clock.now()).toISOString() } });
    return { requeueAfterMs: WAIT_MS };
  };
}
