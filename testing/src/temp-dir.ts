// Throw-away directories for tests, removed when the test ends.
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export async function tempDir(t: TestContext, prefix = 'vigil-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(async () => {
    // node:test runs `after` hooks in the order they were added, so a recorder started after this directory was made
    // is stopped only after this hook: it may still create files while the tree is removed (ENOTEMPTY). Retry a few
    // times, and leave anything left to the end of the process; cleaning up is never the test's failure.
    await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => {
      process.once('exit', () => {
        try {
          rmSync(dir, { recursive: true, force: true });
        } catch {
          // a leftover in the system's temp directory, nothing more
        }
      });
    });
  });
  return dir;
}
