// Throw-away directories for tests, removed when the test ends.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * `t.after` hooks run in the order they were registered, so the directory is usually removed before the
 * processes the test started in it have stopped; they may still create files for a moment, which the
 * retries (ENOTEMPTY, EBUSY) absorb.
 */
export async function tempDir(t: TestContext, prefix = 'vigil-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }));
  return dir;
}
