// The operator's Prometheus metrics, on a registry passed in: reconciles and errors by controller, queue depth,
// leader flag, informer lists — and, exported by the leader only, the cluster's state (quorum, members, cameras by
// phase) and what it did (camera moves, failover seconds).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class OperatorMetrics {
  readonly reconciles: Counter<'controller'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly queueDepth: Gauge<'controller'>;
  readonly leader: Gauge;
  readonly relists: Counter<'informer'>;
  readonly quorum: Gauge;
  readonly members: Gauge<'state'>;
  readonly cameras: Gauge<'phase'>;
  readonly moves: Counter<'kind'>;
  readonly eventsDropped: Counter;
  readonly failoverSeconds: Histogram;
  /** The cluster-state metrics: registered only while this replica leads, so a standby never reports a quorum of 0. */
  readonly #leaderOnly: Array<Gauge<string> | Counter<string> | Histogram>;
  #informerLists: () => Array<{ name: string; lists: number }> = () => [];

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.reconciles = new Counter({ name: 'vigil_operator_reconciles_total', help: 'Reconcile passes by controller', labelNames: ['controller'], registers });
    this.reconcileErrors = new Counter({ name: 'vigil_operator_reconcile_errors_total', help: 'Reconcile passes that failed (requeued with backoff), by controller', labelNames: ['controller'], registers });
    this.queueDepth = new Gauge({ name: 'vigil_operator_queue_depth', help: 'Keys waiting in the work queue, by controller', labelNames: ['controller'], registers });
    this.leader = new Gauge({ name: 'vigil_operator_leader', help: '1 while this process holds the vigil-operator Lease', registers });
    this.eventsDropped = new Counter({ name: 'vigil_operator_events_dropped_total', help: 'Events not written because 1,000 were already waiting (a burst of changes faster than the API server takes them)', registers });
    const counted = new Map<string, number>();
    const informerLists = () => this.#informerLists();
    this.relists = new Counter({
      name: 'vigil_operator_informer_lists_total', help: 'Full lists done by each informer (the first, and one after every 410 Gone)', labelNames: ['informer'], registers,
      // Read at scrape time: a counter gets only what is new since the last scrape.
      collect() {
        for (const { name, lists } of informerLists()) {
          const fresh = lists - (counted.get(name) ?? 0);
          if (fresh > 0) this.inc({ informer: name }, fresh);
          counted.set(name, lists);
        }
      },
    });
    const none: Registry[] = [];
    this.quorum = new Gauge({ name: 'vigil_operator_quorum', help: '1 while more than half of the members are online (exported by the leader only)', registers: none });
    this.members = new Gauge({ name: 'vigil_operator_members', help: 'Members by heartbeat state, counting selected Nodes without a RecorderNode yet as offline (exported by the leader only)', labelNames: ['state'], registers: none });
    this.cameras = new Gauge({ name: 'vigil_operator_cameras', help: 'Cameras by status.phase (exported by the leader only)', labelNames: ['phase'], registers: none });
    this.moves = new Counter({ name: 'vigil_operator_camera_moves_total', help: 'Camera assignments and moves by kind (assigned, failover, planned, rebalance, handover-complete, unassigned), since this replica leads', labelNames: ['kind'], registers: none });
    this.failoverSeconds = new Histogram({
      name: 'vigil_operator_failover_seconds',
      help: 'From the silent node\'s last heartbeat renewal to the reassignment of its camera',
      buckets: [5, 10, 14, 15, 15.5, 16, 16.5, 17, 18, 19, 20, 25, 30, 60],
      registers: none,
    });
    this.#leaderOnly = [this.quorum, this.members, this.cameras, this.moves, this.failoverSeconds];
  }

  /** Where the informers' list counts are read at each scrape. */
  countInformerLists(source: () => Array<{ name: string; lists: number }>): void {
    this.#informerLists = source;
  }

  /** This replica leads: the cluster-state metrics appear. */
  exportClusterState(): void {
    for (const metric of this.#leaderOnly) {
      if (this.registry.getSingleMetric((metric as unknown as { name: string }).name) === undefined) this.registry.registerMetric(metric);
    }
  }

  /** This replica stopped leading: the cluster-state metrics disappear (a standby knows nothing it could vouch for). */
  withdrawClusterState(): void {
    for (const metric of this.#leaderOnly) this.registry.removeSingleMetric((metric as unknown as { name: string }).name);
  }
}
