// Composition root of vigil-operator: flags → settings → logger → kube client → metrics → HTTP listener → informers →
// leader election → controllers; SIGTERM releases the leader Lease; losing leadership ends the process (exit 1).
import { NODE_SILENCE_ANNOTATION, OPERATOR_LEASE_NAME } from '@vigil/crds';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { systemClock, type Clock, KubeClient, loadKubeConfig, Resources, type Lease } from '@vigil/kube';
import { defaultIdentity, parseFlags, UsageError, USAGE } from './config/flags.js';
import { loadSettings, SettingsError } from './config/settings.js';
import { parseLabelSelector, SelectorError } from './controllers/label-selector.js';
import { createLogger } from './log.js';
import { defaultLogFormat } from '@vigil/kube/log-format';
import { readVersion } from './version.js';
import { OperatorMetrics } from './metrics.js';
import { Operator } from './operator.js';
import { startHealthServer } from './runtime/health-server.js';
import { LeaderElector, type LeaseStore } from './runtime/leader-election.js';

export function leaseStore(client: KubeClient, namespace: string, name: string): LeaseStore {
  return {
    get: (signal) => client.get<Lease>(Resources.leases, namespace, name, { signal }),
    create: (lease, signal) => client.create<Lease>(Resources.leases, lease, { signal }),
    update: (lease, signal) => client.replace<Lease>(Resources.leases, lease, { signal }),
  };
}

/** Runs the operator until a signal (exit code 0) or lost leadership (1). Usage and settings errors give 2. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, clock: Clock = systemClock): Promise<number> {
  let flags;
  let settings;
  let nodeEligible;
  if (argv.includes('--version')) {
    process.stdout.write(`${readVersion()}\n`);
    return 0;
  }
  try {
    flags = parseFlags(argv, env);
    settings = loadSettings(flags.settingsFile);
    nodeEligible = parseLabelSelector(flags.nodeSelector);
  } catch (err) {
    if (err instanceof UsageError && err.message === USAGE) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (err instanceof UsageError || err instanceof SettingsError || err instanceof SelectorError) {
      process.stderr.write(`vigil-operator: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const client = new KubeClient(loadKubeConfig(env));
  const namespace = flags.namespace ?? client.contextNamespace() ?? 'default';
  const identity = flags.identity ?? defaultIdentity();
  const log = createLogger(flags.logLevel, identity, flags.logFormat ?? defaultLogFormat(process.stdout.isTTY));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'vigil_operator_' });
  const metrics = new OperatorMetrics(registry);
  metrics.leader.set(0);

  const operator = new Operator({ client, namespace, identity, settings, clock, log, metrics, nodeSilenceMs: flags.nodeSilenceMs, nodeSettleMs: flags.nodeSettleMs, nodeEligible });
  const server = await startHealthServer({ host: flags.listenHost, port: flags.listenPort, registry, ready: () => operator.hasSynced() });
  log.info({ namespace, listen: `${flags.listenHost}:${server.port}`, nodeSelector: flags.nodeSelector || '(every Node)' }, 'vigil-operator starting');

  const stop = new AbortController();
  const onSignal = (sig: string) => {
    log.info({ signal: sig }, 'shutting down');
    stop.abort();
  };
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  operator.startInformers();
  const elector = new LeaderElector({
    identity, leaseName: OPERATOR_LEASE_NAME, namespace, store: leaseStore(client, namespace, OPERATOR_LEASE_NAME), clock, log,
    leaseDurationMs: flags.leaseDurationMs, renewDeadlineMs: flags.renewDeadlineMs, retryPeriodMs: flags.retryPeriodMs,
    onLeaderChange: (holder) => log.info({ leader: holder || null }, 'leader observed'),
    // One silence rule for everyone: the recorders' /cluster/metrics and readiness read it from here.
    annotations: { [NODE_SILENCE_ANNOTATION]: String(flags.nodeSilenceMs / 1000) },
  });

  let code = 0;
  if (await elector.acquire(stop.signal)) {
    metrics.leader.set(1);
    const leading = new AbortController();
    const renewal = elector.renewUntilLost(AbortSignal.any([stop.signal, leading.signal]));
    if (await operator.waitForSync(stop.signal)) {
      log.info('caches synced; reconciling as the leader');
      operator.startControllers();
    }
    const outcome = await renewal;
    metrics.leader.set(0);
    if (outcome === 'lost') {
      // Never a half-leader: stop acting and end the process; the Pod restarts as a standby.
      code = 1;
      void operator.stopControllers();
      operator.stopInformers();
      await server.close();
      return code;
    }
    await operator.stopControllers();
    await elector.release();
  }
  operator.stopInformers();
  await operator.events.flush();
  await server.close();
  client.close();
  log.info('stopped');
  return code;
}
