// How the control plane's processes are started: they end with the test process that started them, however it ends.
// Each runs under a bash that passes its stop signal on and stops it when its stdin (the test process's pipe) closes,
// which happens even when the test process is killed outright (a test runner's timeout), where no exit hook of ours runs.
import { FixtureProcess } from '../../fixture-process.js';

// A background job's stdin is /dev/null in a non-interactive shell: the pipe is kept on fd 3 for the watcher. $1 is the
// signal the child is stopped with.
const GUARD = [
  'exec 3<&0',
  'sig="$1"; shift',
  'trap \'kill -"$sig" "$child" 2>/dev/null; wait "$child"; exit $?\' TERM INT',
  '"$@" </dev/null &',
  'child=$!',
  '{ cat <&3 >/dev/null; kill -"$sig" "$child" 2>/dev/null; } &',
  'wait "$child"',
].join('\n');

export interface GuardedProcessOptions {
  /** Sent to stop it: TERM, or KILL for a process whose state is thrown away and whose graceful shutdown only costs time. */
  stopSignal?: 'TERM' | 'KILL';
  /** Added to this process's environment. */
  env?: Record<string, string>;
}

/** Starts `binary` with `args` as a fixture process that cannot outlive this process. */
export function guardedProcess(binary: string, args: readonly string[], o: GuardedProcessOptions = {}): FixtureProcess {
  return new FixtureProcess('bash', ['-c', GUARD, 'bash', o.stopSignal ?? 'TERM', binary, ...args], o.env === undefined ? {} : { env: { ...process.env, ...o.env } });
}

/**
 * Go's garbage collector for the control plane's Go processes: collect when the heap has grown 4× (not 2×). kube-apiserver
 * then starts with ~15% less CPU (2.4 s against 2.7 s, ~310 MB resident against ~260 MB), which counts when three
 * tests share two cores.
 */
export const GO_TEST_GC = { GOGC: '400' };
