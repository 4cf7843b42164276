// With a database configured, or in a cluster, a node that resolves no name refuses to start and says why.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { RECORDER_BIN } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';

const isRoot = process.getuid?.() === 0;

/** Runs the real recorder with `config` in a UTS namespace of its own whose hostname is empty; resolves its exit code and output. */
async function startNameless(dir: string, extra: Record<string, unknown>): Promise<{ code: number | null; out: string }> {
  const config = join(dir, 'config.yaml');
  await writeFile(config, stringify({ listen: '127.0.0.1:0', record_path: join(dir, 'rec'), work_dir: join(dir, 'work'), auth: { disabled: true }, ...extra }));
  const child = spawn('unshare', ['--uts', '/usr/bin/python3', '-c', `import socket, os, sys; socket.sethostname(''); os.execv(sys.argv[1], sys.argv[1:])`, process.execPath, RECORDER_BIN, '--config', config], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, VIGIL_NODE_NAME: '' },
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, out };
}

const needsRoot = { skip: isRoot ? false : 'needs root to give the recorder an empty hostname (unshare --uts)', timeout: 30_000 };

test('no nodeName and an empty hostname with database.url: exit 2 naming nodeName', needsRoot, async (t) => {
  const { code, out } = await startNameless(await tempDir(t), { database: { url: 'postgres://nobody@127.0.0.1:1/none' } });
  assert.equal(code, 2, out);
  assert.match(out, /refusing to start: nodeName is empty and the hostname cannot be read; with a database configured the node needs a name/);
});

test('no nodeName and an empty hostname in cluster mode: exit 2 naming nodeName and VIGIL_NODE_NAME', needsRoot, async (t) => {
  const { code, out } = await startNameless(await tempDir(t), { cluster: { enabled: true, advertise_url: 'http://127.0.0.1:9997' } });
  assert.equal(code, 2, out);
  assert.match(out, /refusing to start: nodeName is empty and the hostname cannot be read; in a cluster the node needs a name to find the cameras assigned to it \(set nodeName or VIGIL_NODE_NAME\)/);
});
