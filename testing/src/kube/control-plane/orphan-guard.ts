// The control plane's processes end with the test process that started them, however it ends: each runs under a
// bash that passes its stop signal on and stops it when its stdin (the test process's pipe) closes, which happens
// even when the test process is killed outright (a test runner's timeout), where no exit hook of ours runs.
import { FixtureProcess } from '../../fixture-process.js';

// A background job's stdin is /dev/null in a non-interactive shell: the pipe is kept on fd 3 for the watcher.
const GUARD = [
  'exec 3<&0',
  'trap \'kill -TERM "$child" 2>/dev/null; wait "$child"; exit $?\' TERM INT',
  '"$@" </dev/null &',
  'child=$!',
  '{ cat <&3 >/dev/null; kill -TERM "$child" 2>/dev/null; } &',
  'wait "$child"',
].join('\n');

/** Starts `binary` with `args` as a fixture process that cannot outlive this process. */
export function guardedProcess(binary: string, args: readonly string[]): FixtureProcess {
  return new FixtureProcess('bash', ['-c', GUARD, 'bash', binary, ...args]);
}
