// What the process kubelet reads from the API for a Pod: ConfigMaps and Secrets (as text), and ServiceAccount tokens
// from the TokenRequest API, bound to the Pod as the kubelet binds the tokens it mounts.
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';

export interface PodSources {
  /** The ConfigMap's data (binaryData decoded), undefined when it does not exist. */
  configMap(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  secret(namespace: string, name: string): Promise<Record<string, string> | undefined>;
  /** A token of the Pod's ServiceAccount bound to the Pod (invalid once the Pod is gone). */
  serviceAccountToken(pod: V1Pod, o: { audience?: string; expirationSeconds?: number }): Promise<string>;
}

const notFound = (err: unknown): undefined => {
  if ((err as { code?: number }).code === 404) return undefined;
  throw err;
};

/** The sources through `core` (the kubelet's own identity). */
export function apiPodSources(core: CoreV1Api): PodSources {
  return {
    async configMap(namespace, name) {
      const cm = await core.readNamespacedConfigMap({ name, namespace }).catch(notFound);
      if (cm === undefined) return undefined;
      const binary = Object.fromEntries(Object.entries(cm.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
      return { ...binary, ...cm.data };
    },
    async secret(namespace, name) {
      const secret = await core.readNamespacedSecret({ name, namespace }).catch(notFound);
      if (secret === undefined) return undefined;
      return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    },
    async serviceAccountToken(pod, o) {
      const namespace = pod.metadata?.namespace ?? '';
      const name = pod.spec?.serviceAccountName ?? 'default';
      const answer = await core.createNamespacedServiceAccountToken({
        name, namespace,
        body: { spec: { audiences: o.audience === undefined ? [] : [o.audience], expirationSeconds: o.expirationSeconds ?? 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid ?? '' } } },
      });
      const token = answer.status?.token;
      if (token === undefined) throw new Error(`no token for ${namespace}/${name}`);
      return token;
    },
  };
}
