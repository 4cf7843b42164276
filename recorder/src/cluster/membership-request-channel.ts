// The way a recorder asks for a membership change: the request is put on its own heartbeat Lease (the only object it
// may write), the operator carries it out and answers in this node's RecorderNode status.membershipRequest.
import { randomUUID } from 'node:crypto';
import { MEMBERSHIP_REQUEST_ANNOTATION, MembershipRefusal, type MembershipAction, type MembershipOutcome, type MembershipRequest } from '@vigil/crds';
import { isNotFound, toApiTime } from '@vigil/kube';
import type { Clock } from '../util/clock.js';
import { ClusterRequestError } from './cluster-errors.js';
import type { ClusterView } from './cluster-view.js';

export interface MembershipRequestChannelOptions {
  view: ClusterView;
  nodeName: string;
  /** Writes annotations on this node's heartbeat Lease. */
  annotate(annotations: Record<string, string | null>): Promise<void>;
  clock: Clock;
  /** How long to wait for the operator's outcome. */
  timeoutMs?: number;
}

/** What a refusal means to the caller (the HTTP layer maps the kinds to statuses). */
function refusal(outcome: MembershipOutcome): ClusterRequestError {
  const message = outcome.message ?? outcome.reason ?? 'refused';
  if (outcome.reason === MembershipRefusal.NodeNotFound) return new ClusterRequestError('node_not_found', message);
  if (outcome.reason === MembershipRefusal.InvalidMembership) return new ClusterRequestError('invalid_membership', message);
  return new ClusterRequestError('cluster_unreachable', `the operator refused the request: ${message}`);
}

export class MembershipRequestChannel {
  readonly #opts: MembershipRequestChannelOptions;
  /** One request at a time per node: the Lease holds one. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: MembershipRequestChannelOptions) {
    this.#opts = opts;
  }

  /** Asks for `action` and resolves with the operator's outcome once it is Done; throws a ClusterRequestError otherwise. */
  ask(action: MembershipAction, fields: Pick<MembershipRequest, 'nodes' | 'url'> = {}): Promise<MembershipOutcome> {
    const run = this.#queue.then(() => this.#ask(action, fields));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #ask(action: MembershipAction, fields: Pick<MembershipRequest, 'nodes' | 'url'>): Promise<MembershipOutcome> {
    const { clock, nodeName } = this.#opts;
    const request: MembershipRequest = { id: randomUUID(), action, ...fields, requestedAt: toApiTime(clock.now()) };
    try {
      await this.#opts.annotate({ [MEMBERSHIP_REQUEST_ANNOTATION]: JSON.stringify(request) });
    } catch (err) {
      if (isNotFound(err)) throw new ClusterRequestError('cluster_unreachable', `this node has no heartbeat Lease: the operator makes it for a node with a RecorderNode ("${nodeName}")`);
      throw new ClusterRequestError('cluster_unreachable', `the Kubernetes API cannot be reached: ${(err as Error).message}`);
    }
    const outcome = await this.#outcome(request.id);
    if (outcome.result !== 'Done') throw refusal(outcome);
    return outcome;
  }

  /** Waits for the operator's answer to request `id` in this node's RecorderNode status. */
  async #outcome(id: string): Promise<MembershipOutcome> {
    const { view, nodeName, clock } = this.#opts;
    const timeoutMs = this.#opts.timeoutMs ?? 15_000;
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      const outcome = view.recorderNode(nodeName)?.status?.membershipRequest;
      if (outcome?.id === id) return outcome;
      if (clock.now() >= deadline) {
        throw new ClusterRequestError('cluster_unreachable', `the operator did not carry out the request within ${timeoutMs / 1000} s (is vigil-operator running and leading?)`);
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, 100));
    }
  }
}
