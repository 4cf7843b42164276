// The Nodes and Pods as the process kubelet sees them: a list+watch cache of one resource (client-node's informer) that
// tells the kubelet of every change and is started again after an error. A kubelet that listed Nodes and Pods twice a
// second cost its test process and kube-apiserver about 0.75 CPU-second a minute per control plane, idle or not.
import { makeInformer, type KubeConfig } from '../client-node.js';
import type { KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';

export interface WatchedObjects<T> {
  list(): readonly T[];
  /** Resolves once the first list is in (or the kubelet stops first). */
  readonly listed: Promise<void>;
  stop(): void;
}

const RESTART_AFTER_MS = 500;

/** Lists and watches `path` (e.g. /api/v1/pods); `changed` runs after every added, changed or deleted object. */
export function watchObjects<T extends KubernetesObject>(kc: KubeConfig, path: string, list: () => Promise<KubernetesListObject<T>>, changed: () => void): WatchedObjects<T> {
  const informer = makeInformer<T>(kc, path, list);
  let stopped = false;
  let restart: NodeJS.Timeout | undefined;
  let errors = 0;
  let markListed: () => void = () => undefined;
  const listed = new Promise<void>((resolve) => {
    markListed = resolve;
  });
  informer.on('add', changed);
  informer.on('update', changed);
  informer.on('delete', changed);
  // The informer ends at an error (and at its own stop); it resumes from the last resourceVersion it saw, and lists
  // again when that is too old (410).
  const start = (): void => {
    const errorsBefore = errors;
    // A failed list reports its error before start() resolves.
    informer.start().then(() => {
      if (errors === errorsBefore) markListed();
    }, () => undefined);
  };
  informer.on('error', () => {
    errors++;
    if (stopped || restart !== undefined) return;
    restart = setTimeout(() => {
      restart = undefined;
      if (!stopped) start();
    }, RESTART_AFTER_MS);
    restart.unref();
  });
  start();
  return {
    list: () => informer.list(),
    listed,
    stop() {
      stopped = true;
      clearTimeout(restart);
      markListed();
      void informer.stop();
    },
  };
}
