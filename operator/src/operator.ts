// The operator's parts wired together: informers (started at once, so a standby keeps warm caches), the controllers
// (started only while leading), the change → key mappings, and the one-second tick that notices silent nodes (on the
// injected clock).
import { CA_CONFIGMAP_NAME, isCameraCredentialsSecretName, Labels, MEMBERSHIP_REQUEST_ANNOTATION, nodeLeaseName, nodeOfLease, RecorderNodeCondition, type Camera, type RecorderNode } from '@vigil/crds';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import {
  Informer, isOnline, PrioritySlots, reportOf, Resources, type Binding, type CertificateSigningRequest, type Clock, type ConfigMap, type Ingress, type KubeClient, type KubeObject, type Lease,
  type InformerOptions, type Node, type Pod, type Role, type Secret, type Service, type ServiceAccount,
} from '@vigil/kube';
import type { Settings } from './config/settings.js';
import type { OperatorMetrics } from './metrics.js';
import { Controller } from './runtime/controller.js';
import { WorkQueue } from './runtime/workqueue.js';
import { ASSIGNMENT_KEY, reconcileAssignmentFor } from './controllers/assignment.js';
import { CHECKS_KEY, reconcileCameraChecksFor } from './controllers/camera-checks.js';
import { CREDENTIALS_KEY, NodeCredentials, reconcileCameraCredentialsFor } from './controllers/camera-credentials.js';
import { CAMERA_STATUS_WRITES_IN_FLIGHT, nsKey, type Caches, type ControllerContext } from './controllers/context.js';
import { EventRecorder } from './controllers/events.js';
import { reconcileLeaseOwnerFor } from './controllers/lease-owners.js';
import { PodTemplates } from './controllers/pod-templates.js';
import { reconcileMembershipRequestsFor } from './controllers/membership-requests.js';
import { reconcileRecorderIdentityFor } from './controllers/recorder-identity.js';
import { reconcileRecorderNodeStatusFor } from './controllers/recorder-node-status.js';
import { reconcileRecorderNodeFor } from './controllers/recorder-nodes.js';
import { reconcileRecorderPodsFor, RollWaiters } from './controllers/recorder-pods.js';
import { reconcileCertificateRequestsFor } from './controllers/certificate-requests.js';
import { RELEASE_CA_KEY, reconcileReleaseCaFor } from './controllers/release-ca.js';
import type { LabelMatcher } from './controllers/label-selector.js';
import { MANAGED_BY, NODE_ANNOTATION } from './desired/names.js';
import { recorderClusterBindingName } from './desired/recorder-identity.js';
import { DEFAULT_PLAN_OPTIONS } from './desired/placement-rules.js';
import { certificateCondition } from './desired/recorder-node-status.js';
import { checksInputsChanged } from './desired/camera-checks.js';
import { credentialsInputsChanged } from './desired/camera-credentials.js';

/** Nodes each per-node controller (RecorderNode, identity, Pod, status) works on at once. */
const PER_NODE_WORKERS = 4;

export interface OperatorOptions {
  client: KubeClient;
  namespace: string;
  identity: string;
  settings: Settings;
  clock: Clock;
  log: Logger;
  metrics: OperatorMetrics;
  nodeSilenceMs: number;
  /** A member online this long is settled (default 30 s, DEFAULT_PLAN_OPTIONS). */
  nodeSettleMs?: number;
  nodeEligible: LabelMatcher;
  /** How often silent nodes and time-based phases are checked (kubernetes.md §4: every second). */
  tickMs?: number;
  /** How often every key is reconciled again even without a change. */
  resyncMs?: number;
}

/** The RecorderNode a per-node object was made for (its vigil.io/node annotation, else its owner reference: a node's identity, objects of older operators). */
function ownerNode(obj: KubeObject | undefined): string | undefined {
  return obj?.metadata.annotations?.[NODE_ANNOTATION] ?? obj?.metadata.ownerReferences?.find((o) => o.kind === 'RecorderNode')?.name;
}

export class Operator {
  readonly caches: Caches;
  readonly events: EventRecorder;
  /** What every controller is handed (the controllers' unit tests run their reconciles with it). */
  readonly context: ControllerContext;
  /** The one writer of the nodes' camera credentials Secrets (the assignment and the credentials controller share it). */
  readonly credentials: NodeCredentials;
  private readonly controllers: {
    recorderNodes: Controller; identity: Controller; pods: Controller; nodeStatus: Controller; membership: Controller; assignment: Controller;
    leaseOwners: Controller; checks: Controller; credentials: Controller; releaseCa: Controller; certificateRequests: Controller;
  };
  private leading: AbortController | undefined;
  private readonly rollWaiters = new RollWaiters();

  constructor(private readonly opts: OperatorOptions) {
    const { client, namespace, log, clock } = opts;
    const informer = <T extends KubeObject>(name: string, type: (typeof Resources)[keyof typeof Resources], ns?: string, more: InformerOptions = {}) =>
      new Informer<T>(name, client, type, log, clock, { ...(ns !== undefined ? { namespace: ns } : {}), ...more });
    // Only what the operator made: the per-node identities carry its labels.
    const ours = `${Labels.managedBy}=${MANAGED_BY},${Labels.component}=recorder`;
    this.caches = {
      cameras: informer<Camera>('cameras', Resources.cameras, namespace),
      recorderNodes: informer<RecorderNode>('recordernodes', Resources.recorderNodes),
      nodes: informer<Node>('nodes', Resources.nodes),
      leases: informer<Lease>('leases', Resources.leases, namespace),
      pods: informer<Pod>('pods', Resources.pods, namespace),
      services: informer<Service>('services', Resources.services, namespace),
      ingresses: informer<Ingress>('ingresses', Resources.ingresses, namespace),
      configMaps: informer<ConfigMap>('configmaps', Resources.configMaps, namespace),
      // Only the types camera credentials may come from: Helm's release records and TLS keys are never cached.
      secrets: informer<Secret>('secrets', Resources.secrets, namespace, { fieldSelector: 'type=Opaque' }),
      basicAuthSecrets: informer<Secret>('basic-auth-secrets', Resources.secrets, namespace, { fieldSelector: 'type=kubernetes.io/basic-auth' }),
      serviceAccounts: informer<ServiceAccount>('serviceaccounts', Resources.serviceAccounts, namespace, { labelSelector: ours }),
      roles: informer<Role>('roles', Resources.roles, namespace, { labelSelector: ours }),
      roleBindings: informer<Binding>('rolebindings', Resources.roleBindings, namespace, { labelSelector: ours }),
      // The chart's recorder ClusterRoleBinding alone (the operator keeps its subjects).
      clusterRoleBindings: informer<Binding>('clusterrolebindings', Resources.clusterRoleBindings, undefined, { fieldSelector: `metadata.name=${recorderClusterBindingName(opts.settings)}` }),
      // The recorders' requests only (other signers' CSRs, the kubelets' say, are never in memory).
      ...(opts.settings.tls === undefined ? {} : {
        certificateSigningRequests: informer<CertificateSigningRequest>('certificatesigningrequests', Resources.certificateSigningRequests, undefined, { fieldSelector: `spec.signerName=${opts.settings.tls.signerName}` }),
      }),
    };
    this.events = new EventRecorder(client, opts.identity, clock, log.child({ part: 'events' }), undefined, () => opts.metrics.eventsDropped.inc());
    const ctx: ControllerContext = {
      client, caches: this.caches, namespace, settings: opts.settings, clock, log, metrics: opts.metrics, events: this.events,
      nodeSilenceMs: opts.nodeSilenceMs, nodeSettleMs: opts.nodeSettleMs ?? DEFAULT_PLAN_OPTIONS.settleMs, nodeEligible: opts.nodeEligible,
      cameraStatusWrites: new PrioritySlots(CAMERA_STATUS_WRITES_IN_FLIGHT),
    };
    this.context = ctx;
    const templates = new PodTemplates(ctx);
    this.credentials = new NodeCredentials(ctx, templates, () => this.controllers.credentials.enqueue(CREDENTIALS_KEY));
    const controller = (name: string, reconcile: ConstructorParameters<typeof Controller>[2], workers: number) =>
      new Controller(name, new WorkQueue(clock), reconcile, log.child({ controller: name }), opts.metrics, workers);
    this.controllers = {
      // Per-node controllers work on PER_NODE_WORKERS nodes at once: a cold start of 200 nodes makes 200 identities
      // and Pods. The rolling gate inside the Pod controller still decides one node at a time.
      recorderNodes: controller('recordernode', reconcileRecorderNodeFor(ctx), PER_NODE_WORKERS),
      identity: controller('recorderidentity', reconcileRecorderIdentityFor(ctx), PER_NODE_WORKERS),
      pods: controller('recorderpod', reconcileRecorderPodsFor(ctx, templates, this.rollWaiters), PER_NODE_WORKERS),
      nodeStatus: controller('recordernodestatus', reconcileRecorderNodeStatusFor(ctx, templates), PER_NODE_WORKERS),
      // One worker: two requests (from two nodes) about the same members are carried out one after the other.
      membership: controller('membership', reconcileMembershipRequestsFor(ctx), 1),
      assignment: controller('assignment', reconcileAssignmentFor(ctx, this.credentials), 1),
      leaseOwners: controller('leaseowner', reconcileLeaseOwnerFor(ctx), 1),
      checks: controller('camerachecks', reconcileCameraChecksFor(ctx), 1),
      credentials: controller('cameracredentials', reconcileCameraCredentialsFor(this.credentials), 1),
      releaseCa: controller('releaseca', reconcileReleaseCaFor(ctx), 1),
      certificateRequests: controller('certificaterequests', reconcileCertificateRequestsFor(ctx), 1),
    };
    this.wire();
  }

  private wire(): void {
    const c = this.controllers;
    const { caches, namespace, settings } = { caches: this.caches, namespace: this.opts.namespace, settings: this.opts.settings };
    const allNodes = (into: Controller) => {
      for (const rn of caches.recorderNodes.list()) into.enqueue(rn.metadata.name ?? '');
    };
    caches.nodes.onChange((name) => {
      c.recorderNodes.enqueue(name);
      c.assignment.enqueue(ASSIGNMENT_KEY);
    });
    caches.recorderNodes.onChange((name, obj, old) => {
      const meta = (rn: RecorderNode | undefined) => JSON.stringify([rn?.metadata.uid, rn?.metadata.generation, rn?.metadata.annotations, rn?.metadata.labels, rn?.metadata.deletionTimestamp, rn?.spec]);
      const specChanged = meta(obj) !== meta(old);
      if (specChanged) {
        c.pods.enqueue(name);
        c.identity.enqueue(name);
        c.nodeStatus.enqueue(name);
        c.recorderNodes.enqueue(name);
        c.credentials.enqueue(CREDENTIALS_KEY); // a new node gets its (empty) credentials Secret
      }
      // A membership request waits for its requester's RecorderNode (a learner it creates, an outcome it reports).
      c.membership.enqueue(name);
      const online = (rn: RecorderNode | undefined) => JSON.stringify([rn?.status?.url, rn?.status?.online, rn?.status?.conditions?.find((x) => x.type === 'Online')]);
      if (specChanged || online(obj) !== online(old)) c.assignment.enqueue(ASSIGNMENT_KEY);
    });
    caches.leases.onChange((key, obj, old) => {
      const leaseName = key.slice(key.indexOf('/') + 1);
      if (obj && !old) c.leaseOwners.enqueue(leaseName);
      const node = nodeOfLease(leaseName);
      if (node === undefined) return;
      const now = this.opts.clock.now();
      const silence = this.opts.nodeSilenceMs;
      const onlineChanged = !obj || !old || isOnline(obj as Lease, now, silence) !== isOnline(old as Lease, now, silence);
      // A renewal that reports nothing new changes no status (200 nodes renew 100 times a second).
      if (onlineChanged || JSON.stringify(obj?.metadata.annotations) !== JSON.stringify(old?.metadata.annotations)) c.nodeStatus.enqueue(node);
      if (!obj) c.identity.enqueue(node); // deleted (/cluster/leave): made again, empty
      if (obj?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION] !== old?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION]) c.membership.enqueue(node);
      // A renewal of a node that stays online changes no decision; a node coming back (or a Lease appearing or
      // going, or its URL) does, and may also be what a waiting roll needs. Silence makes no event: the tick notices it.
      if (onlineChanged || reportOf(obj as Lease).url !== reportOf(old as Lease).url) {
        c.assignment.enqueue(ASSIGNMENT_KEY);
        for (const waiting of this.rollWaiters.list()) c.pods.enqueue(waiting);
      }
    });
    const perNode = (_key: string, obj: KubeObject | undefined, old: KubeObject | undefined) => {
      const node = ownerNode(obj) ?? ownerNode(old);
      if (node === undefined) return;
      c.pods.enqueue(node);
      c.nodeStatus.enqueue(node);
      // A Pod becoming Ready may let a waiting roll go on.
      for (const waiting of this.rollWaiters.list()) c.pods.enqueue(waiting);
    };
    caches.pods.onChange(perNode);
    caches.services.onChange(perNode);
    caches.ingresses.onChange(perNode);
    const identityOf = (_key: string, obj: KubeObject | undefined, old: KubeObject | undefined) => {
      const node = ownerNode(obj) ?? ownerNode(old);
      if (node === undefined) return;
      c.identity.enqueue(node);
      c.pods.enqueue(node); // a recorder Pod waits for its whole identity
    };
    for (const cache of [caches.serviceAccounts, caches.roles, caches.roleBindings]) cache.onChange(identityOf);
    // The shared recorder binding changed (or was made by a helm upgrade): every node's identity is checked again.
    caches.clusterRoleBindings.onChange(() => {
      allNodes(c.identity);
      allNodes(c.pods);
    });
    caches.configMaps.onChange((key) => {
      if (key === `${namespace}/${CA_CONFIGMAP_NAME}`) c.releaseCa.enqueue(RELEASE_CA_KEY);
      if (key !== `${namespace}/${settings.recorder.configMap}`) return;
      c.releaseCa.enqueue(RELEASE_CA_KEY);
      allNodes(c.pods);
      allNodes(c.nodeStatus);
      c.credentials.enqueue(CREDENTIALS_KEY);
      for (const lease of caches.leases.list()) c.leaseOwners.enqueue(lease.metadata.name ?? '');
    });
    caches.cameras.onChange((_key, obj, old) => {
      c.assignment.enqueue(ASSIGNMENT_KEY);
      // The checks and the credentials are passes over every Camera: only changes that can change their outcome start one.
      if (checksInputsChanged(obj, old)) c.checks.enqueue(CHECKS_KEY);
      if (credentialsInputsChanged(obj, old)) c.credentials.enqueue(CREDENTIALS_KEY);
    });
    caches.certificateSigningRequests?.onChange((name) => c.certificateRequests.enqueue(name));
    for (const secrets of [caches.secrets, caches.basicAuthSecrets]) {
      secrets.onChange((key) => {
        // The nodes' credentials Secrets are put right when changed from outside; no Camera may take credentials from them.
        if (!isCameraCredentialsSecretName(key.slice(key.indexOf('/') + 1))) c.checks.enqueue(CHECKS_KEY);
        c.credentials.enqueue(CREDENTIALS_KEY);
      });
    }
  }

  startInformers(): void {
    for (const inf of Object.values(this.caches)) inf.start();
    // Leader or standby: the informers' re-lists are worth seeing on both.
    this.opts.metrics.countInformerLists(() => Object.values(this.caches).map((inf) => ({ name: inf.name, lists: inf.stats.lists })));
  }

  hasSynced(): boolean {
    return Object.values(this.caches).every((inf) => inf.hasSynced());
  }

  async waitForSync(signal: AbortSignal): Promise<boolean> {
    await Promise.race([Promise.all(Object.values(this.caches).map((inf) => inf.waitForSync())), new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
    return !signal.aborted && this.hasSynced();
  }

  /** Leader only: runs the controllers over every key, then on every change and tick. */
  startControllers(): void {
    if (this.leading) return;
    this.leading = new AbortController();
    const signal = this.leading.signal;
    // Every request in flight (up to 8 status writes at once, the other controllers' calls) and the tick and resync
    // sleeps listen on it for as long as they run: more than Node's default of 10 at once is expected, not a leak.
    setMaxListeners(64, signal);
    for (const ctl of Object.values(this.controllers)) ctl.start(signal);
    const everything = () => {
      for (const node of this.caches.nodes.list()) this.controllers.recorderNodes.enqueue(node.metadata.name ?? '');
      for (const rn of this.caches.recorderNodes.list()) {
        for (const ctl of [this.controllers.recorderNodes, this.controllers.identity, this.controllers.pods, this.controllers.nodeStatus, this.controllers.membership]) ctl.enqueue(rn.metadata.name ?? '');
      }
      this.controllers.assignment.enqueue(ASSIGNMENT_KEY);
      this.controllers.checks.enqueue(CHECKS_KEY);
      this.controllers.credentials.enqueue(CREDENTIALS_KEY);
      for (const lease of this.caches.leases.list()) this.controllers.leaseOwners.enqueue(lease.metadata.name ?? '');
      this.controllers.releaseCa.enqueue(RELEASE_CA_KEY);
      for (const csr of this.caches.certificateSigningRequests?.list() ?? []) this.controllers.certificateRequests.enqueue(csr.metadata.name ?? '');
    };
    everything();
    const tick = () => {
      this.controllers.assignment.enqueue(ASSIGNMENT_KEY);
      // What time alone changes in a node's status: its heartbeat went silent (or came back), its certificate neared
      // or reached its end. Only the nodes whose status says otherwise are looked at (200 nodes, every second).
      const now = this.opts.clock.now();
      for (const rn of this.caches.recorderNodes.list()) {
        const name = rn.metadata.name ?? '';
        const lease = this.caches.leases.get(nsKey(this.context, nodeLeaseName(name)));
        const certificate = certificateCondition(reportOf(lease), now, 0)?.reason;
        const written = rn.status?.conditions?.find((x) => x.type === RecorderNodeCondition.CertificateValid)?.reason;
        if ((rn.status?.online ?? false) !== isOnline(lease, now, this.opts.nodeSilenceMs) || certificate !== written) this.controllers.nodeStatus.enqueue(name);
      }
      for (const [name, ctl] of Object.entries(this.controllers)) this.opts.metrics.queueDepth.set({ controller: ctl.name ?? name }, ctl.queue.length);
    };
    this.every(this.opts.tickMs ?? 1000, tick, signal);
    this.every(this.opts.resyncMs ?? 60_000, everything, signal);
  }

  /** Runs `fn` every `ms` on the injected clock until `signal` aborts. */
  private every(ms: number, fn: () => void, signal: AbortSignal): void {
    void (async () => {
      for (;;) {
        await this.opts.clock.sleep(ms, signal);
        if (signal.aborted) return;
        fn();
      }
    })();
  }

  /** Stops the controllers (waiting for the reconciles in flight). */
  async stopControllers(): Promise<void> {
    this.leading?.abort();
    this.leading = undefined;
    await Promise.all(Object.values(this.controllers).map((ctl) => ctl.stop()));
    this.opts.metrics.withdrawClusterState();
  }

  stopInformers(): void {
    for (const inf of Object.values(this.caches)) inf.stop();
  }

  /** Informer statistics (lists, watches, 410s), for the metrics and tests. */
  informerStats(): Record<string, Informer<KubeObject>['stats']> {
    return Object.fromEntries(Object.values(this.caches).map((inf) => [inf.name, inf.stats]));
  }
}
