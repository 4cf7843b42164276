// The guard the control plane's processes run under: stop() delivers the chosen signal to the process itself, and the
// process ends when the test process that started it is killed outright.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { guardedProcess } from '../../src/kube/control-plane/orphan-guard.js';
import { waitUntil } from '../../src/processes.js';

// A process that ignores SIGTERM (an ignored signal stays ignored across exec) and says its pid.
const IGNORES_TERM = ['-c', 'trap "" TERM; echo "pid $$"; exec sleep 120'];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function pidOf(read: () => string): Promise<number> {
  await waitUntil(() => /pid (\d+)/.test(read()), 10_000, 'the guarded process to say its pid', 20);
  return Number(/pid (\d+)/.exec(read())![1]);
}

test('stop() sends the chosen signal to the process itself: KILL ends one that ignores TERM, TERM does not', async (t) => {
  const killed = guardedProcess('bash', IGNORES_TERM, { stopSignal: 'KILL' });
  const killedPid = await pidOf(() => killed.stdout);
  await killed.stop();
  assert.equal(alive(killedPid), false, 'KILL ended it');

  const termed = guardedProcess('bash', IGNORES_TERM);
  const termedPid = await pidOf(() => termed.stdout);
  t.after(() => {
    if (alive(termedPid)) process.kill(termedPid, 'SIGKILL');
  });
  await termed.stop();
  assert.equal(alive(termedPid), true, 'TERM was passed on and ignored');
});

test('a guarded process ends when the test process that started it is killed outright', async () => {
  const guard = fileURLToPath(new URL('../../src/kube/control-plane/orphan-guard.js', import.meta.url));
  for (const stopSignal of ['TERM', 'KILL']) {
    const script = `import { guardedProcess } from ${JSON.stringify(guard)};
      const p = guardedProcess('bash', ['-c', 'echo "pid $$"; exec sleep 120'], { stopSignal: '${stopSignal}' });
      p.child.stdout.on('data', (d) => process.stdout.write(d));
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const pid = await pidOf(() => out);
    assert.equal(alive(pid), true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    await waitUntil(() => !alive(pid), 10_000, `the guarded process (stop signal ${stopSignal}) to end with its test process`, 50);
  }
});
