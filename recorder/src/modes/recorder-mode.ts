// The seam between the recorder and where it runs: standalone, with a database, or in a cluster — chosen once at start.
import type { KeyObject } from 'node:crypto';
import type { NodeCertificateFiles } from '../cluster/node-certificate-files.js';
import type { ServedNodeCertificate } from '../cluster/node-certificate-requester.js';
import type { Logger } from 'pino';
import type { ArchiveSource } from '../archive/segment-listing.js';
import type { CameraLocator } from '../cameras/camera-locator.js';
import type { CameraRegistry } from '../cameras/registry.js';
import type { VigilConfig } from '../config/schema.js';
import type { ClusterStore } from '../health/cluster-store-check.js';
import type { ClusterMetrics } from '../cluster/cluster-metrics.js';
import type { LeaveResult } from '../cluster/cluster-membership.js';
import type { PeerDirectory } from '../peers/peer-directory.js';
import type { ClosedSegment } from '../recording/closed-segment.js';
import type { Clock } from '../util/clock.js';

export type ModeKind = 'standalone' | 'database' | 'cluster';

export interface ModeContext {
  config: VigilConfig;
  nodeName: string;
  version: string;
  /** The process environment (KUBECONFIG, KUBERNETES_SERVICE_HOST for cluster mode). */
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** The mode publishes its cameras here (the configuration file's are published by the recorder in every mode). */
  registry: CameraRegistry;
  clock: Clock;
  /** Cluster mode with tls.kubernetes_csr: the node's key, its certificate files and the served certificate to keep current. */
  nodeCertificate?: { files: NodeCertificateFiles; key: KeyObject; served: ServedNodeCertificate };
  /**
   * With TLS: the end of the certificate the API serves now and when it counts as expiring (the readiness check's rule);
   * undefined while the node waits for its own. Cluster mode reports it on the heartbeat Lease.
   */
  servedValidity?: () => { notAfter: Date; expiringFrom: Date } | undefined;
}

/** What a mode may ask of the cameras running on this node. */
export interface RunningCameras {
  /** A segment of the camera is being written here right now. */
  writing(cameraId: string): boolean;
  /** Cameras running here. */
  count(): number;
}

/** The spec's cluster endpoints; only cluster mode has them. */
export interface ClusterEndpoints {
  metrics(): Promise<ClusterMetrics>;
  leave(force: boolean): Promise<LeaveResult>;
  removeNode(name: string): Promise<void>;
  addLearner(name: string, url: string | undefined): Promise<void>;
  changeMembership(members: readonly string[]): Promise<void>;
}

/**
 * Everything that differs between the deployment shapes. The recorder asks these questions and never
 * checks which mode it is in.
 */
export interface RecorderMode {
  readonly kind: ModeKind;
  /** Where listings read closed segments; undefined means this node's own disk (the walked index). */
  readonly archive: ArchiveSource | undefined;
  /** Whether a camera is recorded here, by another node (307) or nowhere. */
  readonly locator: CameraLocator;
  /** The nodes assembly parts may be fetched from. */
  readonly peers: PeerDirectory;
  /** Readiness `storage` (the database's `SELECT 1`) and `cluster_store`; undefined when the mode has none. */
  readonly storagePing: (() => Promise<unknown>) | undefined;
  readonly clusterStore: ClusterStore | undefined;
  /** The database outbox (rows waiting, failed deliveries); undefined when the mode has no database. */
  readonly outbox: { readonly depth: number; readonly deliveryErrors: number } | undefined;
  /** A segment closed (or was found by a rescan): durably queued for the shared index, if the mode has one. */
  segmentClosed(segment: ClosedSegment): Promise<void>;
  segmentsRemoved(segments: readonly ClosedSegment[]): Promise<void>;
  /** The cluster endpoints (/cluster/*); undefined outside cluster mode. */
  readonly cluster: ClusterEndpoints | undefined;
  /** Begins publishing the mode's cameras into the registry; called once the fleet listens to it. */
  startCameraSources(running: RunningCameras): Promise<void>;
  /** Stops the camera sources and flushes what waits for the database; called after the fleet closed its files. */
  close(): Promise<void>;
}
