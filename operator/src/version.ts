// The operator's version: its package version (the release's, written into every workspace by scripts/package.sh).
import { readFileSync } from 'node:fs';

export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
