// Kubeconfig files that point kubectl, helm and client libraries at the emulator with a bearer token.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import yaml from 'js-yaml';

export interface KubeconfigOptions {
  server: string;
  /** The CA that signed the server's certificate (https servers). */
  caPem?: string;
  token: string;
  user?: string;
  namespace?: string;
}

export function kubeconfigText(opts: KubeconfigOptions): string {
  const user = opts.user ?? 'admin';
  return yaml.dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'vigil-emulator', cluster: { server: opts.server, ...(opts.caPem !== undefined ? { 'certificate-authority-data': Buffer.from(opts.caPem, 'utf8').toString('base64') } : {}) } }],
    users: [{ name: user, user: { token: opts.token } }],
    contexts: [{ name: `${user}@vigil-emulator`, context: { cluster: 'vigil-emulator', user, ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}) } }],
    'current-context': `${user}@vigil-emulator`,
    preferences: {},
  });
}

export async function writeKubeconfigFile(path: string, opts: KubeconfigOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigText(opts), { mode: 0o600 });
}
