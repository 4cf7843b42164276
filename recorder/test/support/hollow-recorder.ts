// A hollow recorder (as Kubernetes' scalability tests have hollow nodes): everything a recorder does towards the API and
// nothing else. Its own cluster code — ClusterView (the watches of its cameras, the RecorderNodes, the operator's Lease,
// its credentials Secret), Heartbeat (its Lease every 2 s) and RecordingReporter (Recording for every camera it is
// given, as if each wrote segments) — as its node's own ServiceAccount, without cameras, ffmpeg or an HTTP server.
// It counts what its watches received and remembers every camera object they brought, to check they were its own.
import type { Logger } from 'pino';
import { recordsCamera } from '@vigil/crds';
import { KubeClient, loadKubeConfig } from '@vigil/kube';
import { ClusterView } from '../../src/cluster/cluster-view.js';
import { Heartbeat } from '../../src/cluster/heartbeat.js';
import { kubeClock } from '../../src/cluster/kube-connection.js';
import { RecordingReporter } from '../../src/cluster/recording-reporter.js';
import { systemClock } from '../../src/util/clock.js';

export interface HollowRecorderStats {
  node: string;
  /** Cameras assigned to it now (status.node). */
  cameras: number;
  /** Objects its watches and lists received, and the bytes of the watch events. */
  objects: number;
  bytes: number;
  /** Of those, the objects its camera watches received. */
  cameraObjects: number;
  /** Camera objects received that named another node both as status.node and as status.handoverFrom. */
  foreignCameraObjects: number;
  /** Distinct cameras it ever received. */
  camerasSeen: number;
}

export class HollowRecorder {
  readonly view: ClusterView;
  readonly #client: KubeClient;
  readonly #heartbeat: Heartbeat;
  readonly #reporter: RecordingReporter;
  #foreign = 0;
  readonly #seen = new Set<string>();

  /** `kubeconfig`: a kubeconfig file with a token of the node's own ServiceAccount. */
  constructor(readonly node: string, kubeconfig: string, namespace: string, log: Logger) {
    this.#client = new KubeClient(loadKubeConfig({ KUBECONFIG: kubeconfig }), { userAgent: `vigil-recorder/hollow` });
    this.view = new ClusterView(this.#client, namespace, node, log, kubeClock(systemClock));
    for (const cache of this.view.recorded.informers) {
      cache.onChange((key, camera) => {
        if (camera === undefined) return;
        this.#seen.add(key);
        if (!recordsCamera(camera, node)) this.#foreign++;
      });
    }
    this.#heartbeat = new Heartbeat({
      client: this.#client, namespace, nodeName: node, clock: systemClock, log,
      report: () => ({ url: `http://${node}.hollow.invalid:9997`, version: 'hollow', cameras: this.view.assigned.list().length }),
    });
    // Every camera it is given "writes segments" at once.
    this.#reporter = new RecordingReporter({ client: this.#client, view: this.view, nodeName: node, probe: { writing: () => true }, clock: systemClock, log });
  }

  start(): void {
    this.view.start();
    this.#heartbeat.start();
    this.#reporter.start();
  }

  /** Silences the node: no heartbeat, no report (its watches stay, as a recorder cut off from nothing but its Lease would). */
  silence(): void {
    this.#heartbeat.stop();
    this.#reporter.stop();
  }

  stop(): void {
    this.silence();
    this.view.stop();
    this.#client.close();
  }

  stats(): HollowRecorderStats {
    const traffic = this.view.watchTraffic;
    const cameraObjects = this.view.assigned.stats.objects + this.view.recorded.handingOver.stats.objects;
    return { node: this.node, cameras: this.view.assigned.list().length, ...traffic, cameraObjects, foreignCameraObjects: this.#foreign, camerasSeen: this.#seen.size };
  }
}
