// The write budget of a cluster at rest, read from kube-apiserver's audit log: in steady state the operators write
// nothing but the leader's Lease renewals, and each recorder nothing but its own heartbeat Lease. A write beyond that,
// repeated on every resync and multiplied by every node, is load on the API server for nothing.
import assert from 'node:assert/strict';
import { nodeLeaseName, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { auditedWrites, countWrites } from '@vigil/testing/kube/control-plane/audit-log';
import type { LoopbackCluster } from './cluster-fixture.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Watches `windowMs` of steady state and checks every operator and recorder write in it against the budget. */
export async function assertWriteBudget(fx: LoopbackCluster, windowMs: number): Promise<string> {
  const { namespace, controlPlane } = fx.cluster;
  const operatorUser = `system:serviceaccount:${namespace}:vigil-operator`;
  const recorderUser = (node: string): string => `system:serviceaccount:${namespace}:vigil-recorder-${node}`;
  const from = Date.now();
  await sleep(windowMs);
  // The audit log is written as requests complete: a second's grace for the last ones.
  await sleep(1000);
  const writes = await auditedWrites(controlPlane.auditLogPath, from, from + windowMs);
  const allowed = (user: string, target: string, verb: string): boolean => {
    if (verb !== 'update' && verb !== 'patch') return false;
    if (user === operatorUser) return target === `leases coordination.k8s.io ${namespace}/${OPERATOR_LEASE_NAME}`;
    const node = fx.nodes.find((n) => user === recorderUser(n));
    return node !== undefined && target === `leases coordination.k8s.io ${namespace}/${nodeLeaseName(node)}`;
  };
  const ours = writes.filter((w) => w.user === operatorUser || fx.nodes.some((n) => w.user === recorderUser(n)));
  const beyond = ours.filter((w) => !allowed(w.user, w.target, w.verb));
  const summary = [...countWrites(ours)].map(([key, n]) => `${n} × ${key}`).sort().join('\n');
  assert.deepEqual([...countWrites(beyond)].map(([key, n]) => `${n} × ${key}`), [], `writes beyond the budget in ${windowMs / 1000} s of steady state; all of them:\n${summary}`);
  // The budget is not met by silence: the leader renews, every recorder beats.
  const renewals = ours.filter((w) => w.user === operatorUser).length;
  assert.ok(renewals > 0, 'the leader renewed its Lease');
  for (const node of fx.nodes) assert.ok(ours.some((w) => w.user === recorderUser(node)), `${node}'s recorder renewed its heartbeat`);
  return summary;
}
