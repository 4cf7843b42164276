// client-node's KubeConfig (kubeconfig files, the in-cluster ServiceAccount, tokens, certificates, exec plugins), loaded
// from the bundle of that class alone that the build makes (kube/scripts/bundle-kubeconfig.mjs): importing
// @kubernetes/client-node itself loads every API and model of Kubernetes, about 1 CPU-second and 55 MB of memory in
// each operator and cluster-mode recorder for a class that needs none of them. A build that made no bundle (tsc alone)
// gets the same class from the package.
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';

export type KubeConfig = ClientNodeKubeConfig;

const BUNDLE = new URL('../vendor/kubeconfig.js', import.meta.url).href;

async function loadKubeConfigClass(): Promise<typeof ClientNodeKubeConfig> {
  try {
    return ((await import(BUNDLE)) as { KubeConfig: typeof ClientNodeKubeConfig }).KubeConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    return (await import('@kubernetes/client-node')).KubeConfig;
  }
}

/** The KubeConfig class (a constant: the same class for the whole process). */
export const KubeConfigClass: typeof ClientNodeKubeConfig = await loadKubeConfigClass();
