// Test support: a HOME whose NSS certificate store trusts a test CA, so Chromium verifies a server's chain against it like any root.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ok, runCommand } from './command.js';

/**
 * Makes `<home>/.pki/nssdb` (the user certificate store Chromium reads on Linux) with `caFile` trusted for servers, and
 * returns `home` for launchChromium. Needs certutil (Debian package libnss3-tools).
 */
export async function chromiumHomeTrusting(home: string, caFile: string): Promise<string> {
  const db = `sql:${join(home, '.pki', 'nssdb')}`;
  await mkdir(join(home, '.pki', 'nssdb'), { recursive: true });
  ok(await runCommand('certutil', ['-N', '--empty-password', '-d', db]), 'certutil -N (a new certificate store)');
  ok(await runCommand('certutil', ['-A', '-n', 'Vigil Test CA', '-t', 'C,,', '-i', caFile, '-d', db]), 'certutil -A (trust the test CA)');
  return home;
}
