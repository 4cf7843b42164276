// Follows this node's `vigil.io/left` annotation: a node that left stays silent after a restart; add-learner brings it back.
import type { Logger } from 'pino';
import { LEFT_ANNOTATION } from '@vigil/crds';
import type { ClusterCameraSource } from './cluster-camera-source.js';
import type { ClusterView } from './cluster-view.js';
import type { Heartbeat } from './heartbeat.js';

export interface LeftNodeWatchOptions {
  view: ClusterView;
  nodeName: string;
  heartbeat: Heartbeat;
  source: ClusterCameraSource;
  /** A forced leave without the API is completed before anything else (the node must not come back by itself). */
  membership: { readonly unfinishedLeave: boolean; finishLeave(): Promise<void> };
  log: Logger;
}

export class LeftNodeWatch {
  readonly #opts: LeftNodeWatchOptions;
  #firstLook = true;

  constructor(opts: LeftNodeWatchOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#opts.view.onChange(() => this.#look());
  }

  #look(): void {
    const { view, nodeName, heartbeat, source, membership, log } = this.#opts;
    if (!view.synced) return;
    if (membership.unfinishedLeave) {
      void membership.finishLeave();
      return;
    }
    const left = view.recorderNode(nodeName)?.metadata.annotations?.[LEFT_ANNOTATION] !== undefined;
    if (this.#firstLook && left && !heartbeat.paused) {
      // Left before this process started: stay silent (POST /cluster/leave pauses the heartbeat itself).
      heartbeat.pause();
      log.info('this node has left the cluster (vigil.io/left); it takes no cameras until added back');
    }
    this.#firstLook = false;
    if (!left && heartbeat.paused) {
      heartbeat.resume();
      source.resume();
      log.info('this node was added back to the cluster; heartbeat resumed');
    }
  }
}
