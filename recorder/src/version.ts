// The recorder's version: the package version, read once at start.
import { readFileSync } from 'node:fs';

export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}
