// A container's environment as the kubelet resolves it: plain values, the downward API (fieldRef), Secret and
// ConfigMap keys (secretKeyRef, configMapKeyRef, envFrom), $(VAR) references, and the in-cluster API address.
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { PodSources } from './pod-sources.js';

/** Raised while something a container needs (a Secret, a ConfigMap, a key of one) does not exist yet. */
export class NotReadyYet extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

/** The value of a downward API field path (metadata.name, spec.nodeName, metadata.labels['x'], status.podIP, …). */
export function fieldRefValue(pod: V1Pod, fieldPath: string): string {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (keyed !== null) return (keyed[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations)?.[keyed[2] as string] ?? '';
  switch (fieldPath) {
    case 'metadata.name': return pod.metadata?.name ?? '';
    case 'metadata.namespace': return pod.metadata?.namespace ?? '';
    case 'metadata.uid': return pod.metadata?.uid ?? '';
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP': case 'status.hostIP': case 'status.podIPs': case 'status.hostIPs': return '127.0.0.1';
    default: throw new NotReadyYet('CreateContainerConfigError', `unsupported fieldPath ${fieldPath}`);
  }
}

async function keyOf(sources: PodSources, namespace: string, kind: 'Secret' | 'ConfigMap', name: string, key: string, optional: boolean): Promise<string | undefined> {
  const data = kind === 'Secret' ? await sources.secret(namespace, name) : await sources.configMap(namespace, name);
  const value = data?.[key];
  if (value === undefined && !optional) throw new NotReadyYet('CreateContainerConfigError', `${kind.toLowerCase()} "${name}" ${data === undefined ? 'not found' : `has no key "${key}"`}`);
  return value;
}

/** $(VAR) of variables defined before; $$ escapes (as the kubelet expands env values, command and args). */
export function expandReferences(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) => (name === undefined ? '$' : env[name] ?? whole));
}

/** The container's own variables (envFrom first, env over it), then the API's address as every Pod gets it. */
export async function containerEnv(pod: V1Pod, container: V1Container, sources: PodSources, api: { host: string; port: number }): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? '';
  const env: Record<string, string> = { KUBERNETES_SERVICE_HOST: api.host, KUBERNETES_SERVICE_PORT: String(api.port), KUBERNETES_SERVICE_PORT_HTTPS: String(api.port) };
  for (const from of container.envFrom ?? []) {
    const data = from.configMapRef !== undefined ? await sources.configMap(namespace, from.configMapRef.name ?? '') : from.secretRef !== undefined ? await sources.secret(namespace, from.secretRef.name ?? '') : {};
    const optional = from.configMapRef?.optional === true || from.secretRef?.optional === true;
    if (data === undefined && !optional) throw new NotReadyYet('CreateContainerConfigError', `envFrom ${from.configMapRef?.name ?? from.secretRef?.name} not found`);
    for (const [key, value] of Object.entries(data ?? {})) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const e of container.env ?? []) {
    const ref = e.valueFrom;
    let value: string | undefined;
    if (ref === undefined) value = expandReferences(e.value ?? '', env);
    else if (ref.fieldRef !== undefined) value = fieldRefValue(pod, ref.fieldRef.fieldPath);
    else if (ref.secretKeyRef !== undefined) value = await keyOf(sources, namespace, 'Secret', ref.secretKeyRef.name ?? '', ref.secretKeyRef.key, ref.secretKeyRef.optional === true);
    else if (ref.configMapKeyRef !== undefined) value = await keyOf(sources, namespace, 'ConfigMap', ref.configMapKeyRef.name ?? '', ref.configMapKeyRef.key, ref.configMapKeyRef.optional === true);
    else if (ref.resourceFieldRef !== undefined) value = '0';
    if (value !== undefined) env[e.name] = value;
  }
  return env;
}
