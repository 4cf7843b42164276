// vigil-operator replicas kept running as the chart's Deployment keeps them: a replica that exits (it lost its
// leadership, or was killed) is started again after a second, under the same identity, and the restarts are counted.
import type { TestContext } from 'node:test';
import { startOperator, type OperatorProcess } from './operator-process.js';
import type { TestCluster } from './test-cluster.js';

export interface OperatorDeployment {
  /** The replicas running now. */
  readonly replicas: OperatorProcess[];
  /** Replicas started again after they exited, by identity. */
  readonly restarts: Map<string, number>;
  /** The replica holding the leader Lease now, if one does. */
  leader(): Promise<OperatorProcess | undefined>;
}

export async function startOperatorDeployment(t: TestContext, cluster: TestCluster, identities: string[], extraArgs: string[] = []): Promise<OperatorDeployment> {
  let ended = false;
  t.after(() => {
    ended = true;
  });
  const replicas: OperatorProcess[] = [];
  const restarts = new Map<string, number>();
  const run = async (identity: string): Promise<void> => {
    const proc = await startOperator(t, cluster, identity, extraArgs);
    replicas.push(proc);
    void proc.exited.then(async (code) => {
      replicas.splice(replicas.indexOf(proc), 1);
      if (ended) return;
      // Why it went, for the run's diagnostics: its last warnings and errors (a lost leadership says how long since it renewed).
      const last = proc.lines.filter((l) => typeof l.level === 'number' && l.level >= 40).slice(-4).map((l) => JSON.stringify({ ...l, component: undefined, identity: undefined }));
      t.diagnostic(`operator ${identity} exited (${code ?? 'signal'}) and is started again; its last warnings: ${last.join(' | ') || '(none)'}`);
      restarts.set(identity, (restarts.get(identity) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, 1000));
      if (!ended) await run(identity).catch(() => undefined);
    });
  };
  for (const identity of identities) await run(identity);
  return {
    replicas,
    restarts,
    async leader() {
      for (const proc of [...replicas]) if (await proc.isLeader().catch(() => false)) return proc;
      return undefined;
    },
  };
}
