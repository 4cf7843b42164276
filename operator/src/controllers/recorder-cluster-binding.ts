// The chart's recorder ClusterRoleBinding (desired/recorder-identity.ts): its subjects kept to every RecorderNode's
// ServiceAccount. The chart makes the binding (without subjects); the operator may get and update it by name and may
// update or delete no other ClusterRoleBinding of the cluster (kubernetes.md "Least privilege").
import { isDerivedFrom, Resources, type Binding, SerialSection } from '@vigil/kube';
import { recorderClusterBindingName, recorderClusterBindingSubjects } from '../desired/recorder-identity.js';
import type { ControllerContext } from './context.js';

/** Writes the binding's subjects when they differ; false when the binding does not exist (logged once until it does). */
export function recorderClusterBindingKeeper(ctx: ControllerContext): (signal: AbortSignal) => Promise<boolean> {
  let reportedMissing = false;
  // One write at a time: every node's reconcile keeps this one binding, and two at once would race (409) on it.
  const oneAtATime = new SerialSection();
  const keepOnce = async (signal: AbortSignal): Promise<boolean> => {
    const name = recorderClusterBindingName(ctx.settings);
    const have = ctx.caches.clusterRoleBindings.get(name);
    if (have === undefined) {
      if (!reportedMissing) ctx.log.error({ clusterrolebinding: name }, `ClusterRoleBinding ${name} (made by the chart) does not exist: the recorders cannot read their RecorderNodes until it does (helm upgrade makes it again)`);
      reportedMissing = true;
      return false;
    }
    reportedMissing = false;
    const want = recorderClusterBindingSubjects(ctx.caches.recorderNodes.list(), ctx.namespace);
    // Compared as the server returns them (no empty apiGroup, its key order): a repeated PUT on every pass otherwise.
    if (isDerivedFrom(want, have.subjects ?? [])) return true;
    const next: Binding = { ...have, subjects: want };
    ctx.caches.clusterRoleBindings.upsert(await ctx.client.replace(Resources.clusterRoleBindings, next, { signal }));
    ctx.log.info({ clusterrolebinding: name, subjects: want.length }, 'recorder ClusterRoleBinding subjects updated');
    return true;
  };
  return (signal) => oneAtATime.run(() => keepOnce(signal));
}

/** Whether the node's ServiceAccount is a subject of the recorder ClusterRoleBinding (part of a complete identity). */
export function inRecorderClusterBinding(ctx: ControllerContext, account: string): boolean {
  const binding = ctx.caches.clusterRoleBindings.get(recorderClusterBindingName(ctx.settings));
  return (binding?.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.name === account && s.namespace === ctx.namespace);
}
