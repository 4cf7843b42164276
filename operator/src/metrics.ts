// The operator's Prometheus metrics, on a registry passed in: reconciles and errors by controller, queue depth,
// leader flag, quorum, cameras by phase, camera moves, failover seconds, informer re-lists.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class OperatorMetrics {
  readonly reconciles: Counter<'controller'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly queueDepth: Gauge<'controller'>;
  readonly leader: Gauge;
  readonly quorum: Gauge;
  readonly members: Gauge<'state'>;
  readonly cameras: Gauge<'phase'>;
  readonly moves: Counter<'kind'>;
  readonly failoverSeconds: Histogram;
  readonly relists: Gauge<'informer'>;

  constructor(readonly registry: Registry) {
    const registers = [registry];
    this.reconciles = new Counter({ name: 'vigil_operator_reconciles_total', help: 'Reconcile passes by controller', labelNames: ['controller'], registers });
    this.reconcileErrors = new Counter({ name: 'vigil_operator_reconcile_errors_total', help: 'Reconcile passes that failed (requeued with backoff), by controller', labelNames: ['controller'], registers });
    this.queueDepth = new Gauge({ name: 'vigil_operator_queue_depth', help: 'Keys waiting in the work queue, by controller', labelNames: ['controller'], registers });
    this.leader = new Gauge({ name: 'vigil_operator_leader', help: '1 while this process holds the vigil-operator Lease', registers });
    this.quorum = new Gauge({ name: 'vigil_operator_quorum', help: '1 while more than half of the member RecorderNodes are online', registers });
    this.members = new Gauge({ name: 'vigil_operator_members', help: 'Member RecorderNodes by heartbeat state', labelNames: ['state'], registers });
    this.cameras = new Gauge({ name: 'vigil_operator_cameras', help: 'Cameras by status.phase', labelNames: ['phase'], registers });
    this.moves = new Counter({ name: 'vigil_operator_camera_moves_total', help: 'Camera assignments and moves by kind (assigned, failover, planned, handover-complete, unassigned)', labelNames: ['kind'], registers });
    this.failoverSeconds = new Histogram({
      name: 'vigil_operator_failover_seconds',
      help: 'From the silent node\'s last heartbeat renewal to the reassignment of its camera',
      buckets: [5, 10, 14, 15, 15.5, 16, 16.5, 17, 18, 19, 20, 25, 30, 60],
      registers,
    });
    this.relists = new Gauge({ name: 'vigil_operator_informer_lists', help: 'Full lists done by each informer (the first, and one after every 410 Gone)', labelNames: ['informer'], registers });
  }
}
