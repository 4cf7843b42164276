// Command-line flags of vigil-operator (kubernetes.md §7) and their defaults from the environment.
import { hostname } from 'node:os';
import { LOG_FORMATS, type LogFormat } from '@vigil/kube/log-format';

export interface OperatorFlags {
  namespace?: string;
  identity?: string;
  listenHost: string;
  listenPort: number;
  nodeSelector: string;
  settingsFile: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  nodeSilenceMs: number;
  /** --node-settle: a member online this long without a break is settled (takes rebalanced cameras). */
  nodeSettleMs: number;
  logLevel: string;
  /** --log-format; undefined: pretty on a terminal, JSON otherwise. */
  logFormat?: LogFormat;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `usage: vigil-operator --settings FILE [options]
  --settings FILE          recorder Pod settings (YAML; the chart's ConfigMap)
  --namespace NS           release namespace (default: $POD_NAMESPACE, else the kubeconfig context's)
  --identity ID            leader-election identity (default: $POD_NAME, else the host name)
  --listen HOST:PORT       /healthz, /readyz, /metrics (default :8080)
  --node-selector SEL      label selector of the Nodes that get a RecorderNode (default: every Node)
  --lease-duration D       leader Lease duration (default 6s)
  --renew-deadline D       leader renew deadline (default 4s)
  --retry-period D         leader retry period (default 1s)
  --node-silence D         a node whose heartbeat is older is offline (default 15s)
  --node-settle D          a node online this long without a break takes rebalanced cameras (default 30s)
  --log-level LEVEL        fatal|error|warn|info|debug|trace (default info)
  --log-format F           json or pretty (time, level, message); default pretty on a terminal, else json
  --version                print the version and exit
The Kubernetes API: $KUBECONFIG, else the in-cluster ServiceAccount.
Durations: 1500ms, 6s, 1m, or plain seconds.`;

/** "6s", "1500ms", "1m", "2.5" (seconds) → milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  if (!m) throw new UsageError(`${flag}: "${value}" is not a duration (e.g. 6s, 1500ms)`);
  const n = Number(m[1]);
  const ms = m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1000;
  if (ms <= 0) throw new UsageError(`${flag} must be positive`);
  return ms;
}

export function parseListen(value: string): { host: string; port: number } {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/.exec(value);
  if (!m || Number(m[2]) > 65535) throw new UsageError(`--listen: "${value}" is not HOST:PORT or :PORT`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

export function parseFlags(argv: string[], env: NodeJS.ProcessEnv): OperatorFlags {
  const values = new Map<string, string>();
  const known = new Set(['--settings', '--namespace', '--identity', '--listen', '--node-selector', '--lease-duration', '--renew-deadline', '--retry-period', '--node-silence', '--node-settle', '--log-level', '--log-format']);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new UsageError(USAGE);
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!known.has(flag)) throw new UsageError(`unknown argument "${arg}"\n${USAGE}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
    values.set(flag, value);
  }
  const settingsFile = values.get('--settings');
  if (!settingsFile) throw new UsageError(`--settings FILE is required\n${USAGE}`);
  const listen = parseListen(values.get('--listen') ?? ':8080');
  const flags: OperatorFlags = {
    namespace: values.get('--namespace') ?? (env.POD_NAMESPACE || undefined),
    identity: values.get('--identity') ?? (env.POD_NAME || undefined),
    listenHost: listen.host,
    listenPort: listen.port,
    nodeSelector: values.get('--node-selector') ?? '',
    settingsFile,
    leaseDurationMs: parseDuration('--lease-duration', values.get('--lease-duration') ?? '6s'),
    renewDeadlineMs: parseDuration('--renew-deadline', values.get('--renew-deadline') ?? '4s'),
    retryPeriodMs: parseDuration('--retry-period', values.get('--retry-period') ?? '1s'),
    nodeSilenceMs: parseDuration('--node-silence', values.get('--node-silence') ?? '15s'),
    nodeSettleMs: parseDuration('--node-settle', values.get('--node-settle') ?? '30s'),
    logLevel: values.get('--log-level') ?? 'info',
  };
  const logFormat = values.get('--log-format');
  if (logFormat !== undefined) {
    const format = LOG_FORMATS.find((f) => f === logFormat);
    if (format === undefined) throw new UsageError(`--log-format: "${logFormat}" is not one of ${LOG_FORMATS.join(', ')}`);
    flags.logFormat = format;
  }
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace'].includes(flags.logLevel)) throw new UsageError(`--log-level: "${flags.logLevel}" is not one of fatal, error, warn, info, debug, trace`);
  if (!(flags.renewDeadlineMs < flags.leaseDurationMs)) throw new UsageError('--renew-deadline must be shorter than --lease-duration');
  if (!(flags.retryPeriodMs < flags.renewDeadlineMs)) throw new UsageError('--retry-period must be shorter than --renew-deadline');
  return flags;
}

/** The identity when neither --identity nor POD_NAME gives one. */
export function defaultIdentity(): string {
  return hostname();
}
