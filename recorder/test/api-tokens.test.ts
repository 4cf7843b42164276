// API tokens from auth.tokens plus auth.tokens_file; the file is read again when it changes, a bad edit keeps the last good list.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { apiTokens } from '../src/api-tokens.js';
import { configSchema } from '../src/config/schema.js';
import { parseTokensFile } from '../src/config/tokens-file.js';
import { tempDir } from '@vigil/testing/temp-dir';
import { ManualClock, testLogger } from './support/fakes.js';

const hash = (c: string): string => c.repeat(64);

test('tokens of the file are added to the configured ones and follow the file as it changes', async (t) => {
  const dir = await tempDir(t);
  const file = join(dir, 'tokens.yaml');
  await writeFile(file, stringify([{ name: 'wall', role: 'viewer', sha256: hash('a') }]));
  const config = configSchema.parse({ auth: { tokens: [{ name: 'root', role: 'admin', sha256: hash('b') }], tokens_file: file } });
  const clock = new ManualClock();
  const { log, text } = testLogger();
  const tokens = apiTokens(config, log, clock);
  assert.deepEqual(tokens.current().map((x) => x.name), ['root', 'wall']);
  await writeFile(file, stringify({ tokens: [{ name: 'ops', role: 'operator', sha256: hash('c') }] }));
  clock.advance(1000);
  assert.deepEqual(tokens.current().map((x) => x.name), ['root', 'ops'], 'rotated without a restart');
  await writeFile(file, '- {name: broken, role: superuser, sha256: nothex}\n');
  clock.advance(1000);
  assert.deepEqual(tokens.current().map((x) => x.name), ['root', 'ops'], 'a bad edit keeps the last good list');
  assert.match(text(), /auth\.tokens_file cannot be used: \[0\]\.role/);
  assert.ok(!text().includes('nothex'), 'values never reach the log');
});

test('the token file’s problems name the entry and field', () => {
  assert.throws(() => parseTokensFile('- {name: a, role: viewer, sha256: "12"}\n'), /\[0\]\.sha256: must be the hex SHA-256/);
  assert.throws(() => parseTokensFile('{not: [valid'), /not valid YAML/);
  assert.deepEqual(parseTokensFile(''), []);
});
