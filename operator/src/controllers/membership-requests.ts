// Membership requests (key: the requesting node): the request on a recorder's heartbeat Lease is checked and carried
// out (desired/membership.ts), and its outcome applied to the requesting node's RecorderNode status as
// `vigil-operator-membership`. Level-triggered: a request whose id the outcome already names is done.
import { MEMBERSHIP_REQUEST_ANNOTATION, nodeLeaseName, parseMembershipRequest, type RecorderNode } from '@vigil/crds';
import { isNotFound, Resources, toApiTime } from '@vigil/kube';
import { planMembershipRequest } from '../desired/membership.js';
import type { ReconcileResult } from '../runtime/controller.js';
import { applyStatusCached, createCached, nsKey, type ControllerContext } from './context.js';

export const MEMBERSHIP_FIELD_MANAGER = 'vigil-operator-membership';

export function reconcileMembershipRequestsFor(ctx: ControllerContext) {
  /**
   * The unreadable request last reported per node (the annotation's text): a bad request is reported once, not at every
   * heartbeat that renews its Lease; one entry per node at most, dropped once the node's request is readable or gone.
   */
  const unreadable = new Map<string, string>();
  return async (requester: string, signal: AbortSignal): Promise<ReconcileResult | void> => {
    const lease = ctx.caches.leases.get(nsKey(ctx, nodeLeaseName(requester)));
    const text = lease?.metadata.annotations?.[MEMBERSHIP_REQUEST_ANNOTATION];
    const { request, error } = parseMembershipRequest(text);
    if (error !== undefined) {
      if (unreadable.get(requester) !== text) ctx.log.warn({ node: requester, err: error }, 'a membership request on a heartbeat Lease is not readable; ignored');
      unreadable.set(requester, text ?? '');
      return;
    }
    unreadable.delete(requester);
    if (request === undefined) return;
    const self = ctx.caches.recorderNodes.get(requester);
    if (self === undefined || self.status?.membershipRequest?.id === request.id) return;

    const plan = planMembershipRequest(requester, request, ctx.caches.recorderNodes.list(), ctx.clock.now());
    if (plan.create) {
      const created = await createCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, plan.create, signal);
      if (created) ctx.events.normal(created, 'MemberAdded', `node ${created.metadata.name} joined as a learner (through ${requester})`);
    }
    for (const { node, patch } of plan.patches) {
      try {
        const written = await ctx.client.mergePatch<RecorderNode>(Resources.recorderNodes, undefined, node, patch, { signal });
        ctx.caches.recorderNodes.upsert(written);
        ctx.events.normal(written, 'MembershipRequest', `${request.action} through ${requester}: ${plan.outcome.message ?? ''}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const outcome = { ...plan.outcome, time: toApiTime(ctx.clock.now()) };
    try {
      await applyStatusCached(ctx, Resources.recorderNodes, ctx.caches.recorderNodes, self, { membershipRequest: outcome }, signal, MEMBERSHIP_FIELD_MANAGER);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (outcome.result === 'Refused') ctx.events.warning(self, 'MembershipRequestRefused', `${request.action} through ${requester} refused: ${outcome.message ?? outcome.reason}`);
    ctx.log.info({ node: requester, action: request.action, result: outcome.result, reason: outcome.reason }, outcome.message ?? 'membership request handled');
  };
}
