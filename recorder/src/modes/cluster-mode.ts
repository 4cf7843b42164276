// Cluster mode (Kubernetes): cameras from the Camera resources assigned to this node, heartbeat, status reports, 307s, membership endpoints.
import { AssignmentCache } from '../cluster/assignment-cache.js';
import { ClusterCameraSource } from '../cluster/cluster-camera-source.js';
import { clusterLocator } from '../cluster/cluster-locator.js';
import { ClusterMembership } from '../cluster/cluster-membership.js';
import { clusterMetrics } from '../cluster/cluster-metrics.js';
import { clusterPeerDirectory } from '../cluster/cluster-peers.js';
import { ClusterLookups } from '../cluster/cluster-lookups.js';
import { ClusterView } from '../cluster/cluster-view.js';
import { Heartbeat } from '../cluster/heartbeat.js';
import { connectToKubernetes, kubeClock } from '../cluster/kube-connection.js';
import { LeftNodeWatch } from '../cluster/left-node-watch.js';
import { MembershipRequestChannel } from '../cluster/membership-request-channel.js';
import { RecordingReporter } from '../cluster/recording-reporter.js';
import { kubeSigningRequestApi, NodeCertificateRequester } from '../cluster/node-certificate-requester.js';
import { staticPeerDirectory } from '../peers/peer-directory.js';
import { startDatabaseServices } from './database-mode.js';
import type { ModeContext, RecorderMode } from './recorder-mode.js';

export async function startClusterMode(ctx: ModeContext): Promise<RecorderMode> {
  const { config, nodeName, clock } = ctx;
  const log = ctx.log.child({ component: 'cluster' });
  const advertised = config.cluster.advertise_url;
  if (advertised === undefined) throw new Error('cluster.advertise_url is required in cluster mode'); // the schema refuses it before
  const { client, namespace } = connectToKubernetes(ctx.env, config.cluster.namespace, ctx.version);
  const view = new ClusterView(client, namespace, nodeName, log, kubeClock(clock));
  const lookups = new ClusterLookups(client, namespace, clock);
  const cache = new AssignmentCache(config.cluster.dataDir, nodeName);
  const source = new ClusterCameraSource({ view, registry: ctx.registry, config, nodeName, cache, clock, log });
  /** Set once the fleet runs: what the node reports with each heartbeat. */
  let camerasNow = (): number => 0;
  const heartbeat = new Heartbeat({
    client, namespace, nodeName, clock, log,
    report: () => {
      const validity = ctx.servedValidity?.();
      return {
        url: advertised, publicUrl: config.cluster.public_url, version: ctx.version, cameras: camerasNow(),
        ...(validity === undefined ? {} : { certificateNotAfter: validity.notAfter.toISOString(), certificateExpiringFrom: validity.expiringFrom.toISOString() }),
      };
    },
  });
  const requests = new MembershipRequestChannel({ view, nodeName, annotate: (a) => heartbeat.annotate(a), clock });
  const membership = new ClusterMembership({ view, nodeName, heartbeat, requests, source, cache, clock, log });
  const db = config.database === undefined ? undefined : await startDatabaseServices(ctx, config.database);
  const reporters: Array<{ stop(): void }> = [];
  // The node's certificate is asked for at once (its API is not served before), whatever the cameras do.
  const csr = config.tls?.kubernetes_csr;
  if (csr !== undefined && ctx.nodeCertificate !== undefined) {
    const requester = new NodeCertificateRequester({
      api: kubeSigningRequestApi(client), nodeName, ...ctx.nodeCertificate, dnsNames: csr.dns_names, signerName: csr.signer_name, caFile: config.cluster.tls?.ca_file, clock, log,
    });
    requester.start();
    reporters.push(requester);
  }
  log.info({ namespace, node: nodeName, url: advertised, public_url: config.cluster.public_url }, 'cluster mode: cameras come from the Camera resources assigned to this node');

  return {
    kind: 'cluster',
    archive: db?.archive,
    locator: clusterLocator(view, lookups, ctx.registry, nodeName),
    peers: clusterPeerDirectory(view, staticPeerDirectory(config.cluster.peers, config.tls === undefined ? 'http' : 'https'), namespace),
    storagePing: db === undefined ? undefined : () => db.pool.query('SELECT 1'),
    clusterStore: {
      // The API answers: the caches have listed and the heartbeat was renewed within the silence limit.
      reachable: async () => view.synced && (heartbeat.paused || (heartbeat.lastRenewedAt !== undefined && clock.now() - heartbeat.lastRenewedAt < (await lookups.nodeSilenceMs()))),
    },
    outbox: db?.outbox,
    cluster: {
      metrics: () => clusterMetrics(view, lookups, () => clock.now()),
      leave: (force) => membership.leave(force),
      removeNode: (name) => membership.removeNode(name),
      addLearner: (name, url) => membership.addLearner(name, url),
      changeMembership: (members) => membership.changeMembership(members),
    },
    segmentClosed: async (segment) => db?.segmentClosed(segment),
    segmentsRemoved: async (segments) => db?.segmentsRemoved(segments),
    startCameraSources: async (running) => {
      camerasNow = () => running.count();
      await source.start();
      view.start();
      heartbeat.start();
      new LeftNodeWatch({ view, nodeName, heartbeat, source, membership, log }).start();
      const recording = new RecordingReporter({ client, view, nodeName, probe: { writing: (id) => running.writing(id) }, clock, log });
      recording.start();
      reporters.push(recording);
    },
    close: async () => {
      for (const r of reporters) r.stop();
      heartbeat.stop();
      source.stop();
      view.stop();
      client.close();
      await db?.close();
    },
  };
}
