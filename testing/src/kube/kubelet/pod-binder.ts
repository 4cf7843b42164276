// What kube-scheduler would do for the Pods of Deployments and StatefulSets, at the size the tests need: a Pod without
// spec.nodeName is bound (the pods/binding subresource, as the scheduler binds) to a Node that is schedulable, matches
// its nodeSelector and required node affinity, whose NoSchedule/NoExecute taints it tolerates (the node lifecycle
// controller's not-ready and unreachable taints included), and that does not already run a Pod its required
// anti-affinity excludes; among those, the Node with the fewest Pods of the same owner, then the fewest Pods.
import type { CoreV1Api, V1Node, V1NodeSelectorRequirement, V1Pod, V1PodAffinityTerm, V1Taint, V1Toleration } from '@kubernetes/client-node';

function tolerates(tolerations: V1Toleration[], taint: V1Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

function requirementHolds(labels: Record<string, string>, r: V1NodeSelectorRequirement): boolean {
  const value = labels[r.key];
  switch (r.operator) {
    case 'In': return value !== undefined && (r.values ?? []).includes(value);
    case 'NotIn': return value === undefined || !(r.values ?? []).includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    default: return false;
  }
}

function labelsMatch(labels: Record<string, string>, selector: V1PodAffinityTerm['labelSelector']): boolean {
  if (selector === undefined) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return byLabels && (selector.matchExpressions ?? []).every((e) => requirementHolds(labels, { key: e.key, operator: e.operator, values: e.values ?? [] }));
}

/** Whether `pod` may run on `node` (given the Pods already bound there). */
export function fits(pod: V1Pod, node: V1Node, podsOnNode: V1Pod[]): boolean {
  const labels = node.metadata?.labels ?? {};
  if (node.spec?.unschedulable === true) return false;
  if (!Object.entries(pod.spec?.nodeSelector ?? {}).every(([k, v]) => labels[k] === v)) return false;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (terms !== undefined && !terms.some((t) => (t.matchExpressions ?? []).every((r) => requirementHolds(labels, r)))) return false;
  const tolerations = pod.spec?.tolerations ?? [];
  if ((node.spec?.taints ?? []).some((t) => t.effect !== 'PreferNoSchedule' && !tolerates(tolerations, t))) return false;
  const antiAffinity = pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
  // Only the hostname topology (each Node its own domain), the one the tests' charts use.
  return !antiAffinity.some((term) => podsOnNode.some((other) => other.metadata?.namespace === pod.metadata?.namespace && labelsMatch(other.metadata?.labels ?? {}, term.labelSelector)));
}

const ownerOf = (pod: V1Pod): string => pod.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid ?? '';

/** The Node to bind `pod` to, or undefined when none fits (the Pod stays Pending, as it would). */
export function chooseNode(pod: V1Pod, nodes: V1Node[], pods: V1Pod[]): V1Node | undefined {
  const owner = ownerOf(pod);
  const running = pods.filter((p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const scored = nodes
    .map((node) => {
      const on = running.filter((p) => p.spec?.nodeName === node.metadata?.name);
      return { node, on, siblings: owner === '' ? 0 : on.filter((p) => ownerOf(p) === owner).length };
    })
    .filter((n) => fits(pod, n.node, n.on))
    .sort((a, b) => a.siblings - b.siblings || a.on.length - b.on.length || (a.node.metadata?.name ?? '').localeCompare(b.node.metadata?.name ?? ''));
  return scored[0]?.node;
}

/**
 * Binds every unbound, undeleted Pod that fits somewhere; a Pod another binder took first (409) is left alone. Calls
 * `onBound` with each Pod's uid and Node as it is bound.
 */
export async function bindPendingPods(core: CoreV1Api, nodes: V1Node[], pods: V1Pod[], onBound: (uid: string, nodeName: string) => void = () => undefined): Promise<void> {
  const bound = [...pods];
  for (const pod of pods) {
    if ((pod.spec?.nodeName ?? '') !== '' || pod.metadata?.deletionTimestamp !== undefined || (pod.spec?.schedulerName ?? 'default-scheduler') !== 'default-scheduler') continue;
    const node = chooseNode(pod, nodes, bound);
    if (node === undefined) continue;
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? '';
    try {
      await core.createNamespacedPodBinding({ name, namespace, body: { metadata: { name, namespace }, target: { apiVersion: 'v1', kind: 'Node', name: node.metadata?.name ?? '' } } });
      bound.push({ ...pod, spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: node.metadata?.name ?? '' } });
      onBound(pod.metadata?.uid ?? '', node.metadata?.name ?? '');
    } catch (err) {
      if ((err as { code?: number }).code !== 409 && (err as { code?: number }).code !== 404) throw err;
    }
  }
}
