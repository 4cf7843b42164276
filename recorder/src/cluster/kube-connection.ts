// The connection to the Kubernetes API: KUBECONFIG or the in-cluster ServiceAccount, the namespace, the informers' clock.
import { readFileSync } from 'node:fs';
import { KubeClient, loadKubeConfig, type Clock as KubeClock } from '@vigil/kube';
import type { Clock } from '../util/clock.js';

const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export interface KubeConnection {
  client: KubeClient;
  namespace: string;
}

/** cluster.namespace, else the Pod's ServiceAccount namespace, else the kubeconfig context's, else `default`. */
function resolveNamespace(configured: string | undefined, client: KubeClient): string {
  if (configured !== undefined) return configured;
  try {
    const fromPod = readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim();
    if (fromPod !== '') return fromPod;
  } catch {
    // not in a Pod
  }
  return client.contextNamespace() ?? 'default';
}

export function connectToKubernetes(env: Readonly<Record<string, string | undefined>>, namespace: string | undefined, version: string): KubeConnection {
  const client = new KubeClient(loadKubeConfig(env as NodeJS.ProcessEnv), { userAgent: `vigil-recorder/${version}` });
  return { client, namespace: resolveNamespace(namespace, client) };
}

/** The informers' sleeps on the recorder's clock. */
export function kubeClock(clock: Clock): KubeClock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        const timer = clock.setTimeout(done, ms);
        function done(): void {
          clock.clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}
