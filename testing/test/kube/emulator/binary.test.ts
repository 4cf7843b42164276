// The vigil-kube-emulator binary: prints where it listens, writes the admin kubeconfig, creates --nodes, serves the admin API, exits on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { kubectlPath } from '../../../src/kube/tools.js';
import { freePort } from '../../../src/net.js';
import { waitUntil } from '../../../src/processes.js';
import { tempDir } from '../../../src/temp-dir.js';

const BIN = fileURLToPath(new URL('../../../../bin/vigil-kube-emulator.js', import.meta.url));

test('vigil-kube-emulator serves on --listen, writes --kubeconfig, creates --nodes and exits cleanly on SIGTERM', async (t) => {
  const dir = await tempDir(t, 'vigil-kube-bin-');
  const kubeconfig = join(dir, 'kubeconfig');
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, '--listen', `127.0.0.1:${port}`, '--kubeconfig', kubeconfig, '--nodes', 'a,b,c'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  await waitUntil(() => stdout.includes('\n'), 60_000, 'the binary to say where it listens');
  assert.equal(stdout, `listening on http://127.0.0.1:${port}\n`);

  const config = yaml.load(await readFile(kubeconfig, 'utf8')) as { users: Array<{ user: { token: string } }>; clusters: Array<{ cluster: { server: string } }> };
  const token = config.users[0]?.user.token as string;
  assert.equal(config.clusters[0]?.cluster.server, `https://127.0.0.1:${port}`);
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  await waitUntil(async () => {
    const get = spawn(kubectlPath(), ['get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}'], { env });
    let out = '';
    get.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    await once(get, 'close');
    return out.trim() === 'a=True b=True c=True';
  }, 60_000, 'nodes a, b and c Ready');

  const res = await fetch(`http://127.0.0.1:${port}/emulator/faults/latency`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"ms":1}' });
  assert.equal(res.status, 200);

  child.kill('SIGTERM');
  const [code] = await once(child, 'exit') as [number | null];
  assert.equal(code, 0);
});
