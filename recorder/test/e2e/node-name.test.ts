// With a database configured, a node that resolves no name refuses to start and says why.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { RECORDER_BIN } from '../support/recorder-process.js';
import { tempDir } from '@vigil/testing/temp-dir';

const isRoot = process.getuid?.() === 0;

test('no nodeName and an empty hostname with database.url: exit 2 naming nodeName', { skip: isRoot ? false : 'needs root to give the recorder an empty hostname (unshare --uts)', timeout: 30_000 }, async (t) => {
  const dir = await tempDir(t);
  const config = join(dir, 'config.yaml');
  await writeFile(config, stringify({ listen: '127.0.0.1:0', record_path: join(dir, 'rec'), work_dir: join(dir, 'work'), auth: { disabled: true }, database: { url: 'postgres://nobody@127.0.0.1:1/none' } }));
  // A UTS namespace of its own, with the hostname set to nothing, then the real recorder.
  const child = spawn('unshare', ['--uts', '/usr/bin/python3', '-c', `import socket, os, sys; socket.sethostname(''); os.execv(sys.argv[1], sys.argv[1:])`, process.execPath, RECORDER_BIN, '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 2, out);
  assert.match(out, /refusing to start: nodeName is empty and the hostname cannot be read; with a database configured the node needs a name/);
});
