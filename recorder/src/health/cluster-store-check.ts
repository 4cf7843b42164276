// Readiness check `cluster_store`: the cluster's state store, when the node runs in a cluster.
import type { ReadinessCheck } from './readiness.js';

/** What cluster mode will plug in; a standalone node has none. */
export interface ClusterStore {
  reachable(): Promise<boolean>;
}

export function clusterStoreCheck(store: ClusterStore | undefined): ReadinessCheck {
  return {
    name: 'cluster_store',
    probe: async () => {
      if (store === undefined) return { ok: true, detail: { configured: false } };
      return { ok: await store.reachable(), detail: { configured: true } };
    },
    unanswered: () => ({ configured: store !== undefined }),
  };
}
