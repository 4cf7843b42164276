// The chart under test: where it is, `helm template` with a values object, the rendered objects and the values matrix.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { runHelm, type CommandResult } from '@vigil/testing/kube/cli-runner';
import { tempDir } from '@vigil/testing/temp-dir';
import { parseAllDocuments } from 'yaml';

/** The repository root (this file is compiled to deploy-tests/dist/test/support/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const CHART_DIR = join(REPO_ROOT, 'helm/vigil');

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** The values files the matrix renders: each names what a user would try. */
export const VALUES_MATRIX: Record<string, Record<string, unknown>> = {
  defaults: {},
  'ingress with TLS': { ingress: { enabled: true, className: 'nginx', host: 'vigil.example.com', tls: { secretName: 'vigil-tls' } } },
  'external database, tokens and a license': {
    database: { url: 'postgres://vigil:s3cret@db.example.com:5432/vigil' },
    auth: { tokens: [{ name: 'ops', role: 'admin', token: 'a-long-enough-admin-token' }, { name: 'wall', role: 'viewer', sha256: 'ab'.repeat(32) }] },
    license: { content: 'VIGIL-LICENSE\n', publicKey: 'MCowBQYDK2VwAyEA', required: true },
    recorder: { record: { format: 'mp4', segmentSeconds: 300, retention: { maxAgeDays: 30, minFreePercent: 10 } } },
  },
  'postgresql enabled': { postgresql: { enabled: true } },
  'ServiceMonitor enabled': { serviceMonitor: { enabled: true, labels: { release: 'prometheus' } } },
};

export async function writeValues(dir: string, values: Record<string, unknown>, name = 'values.json'): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(values));
  return file;
}

/** `helm template` of the chart; never throws (the result says what helm said). */
export async function helmTemplate(t: TestContext, values: Record<string, unknown>, opts: { release?: string; namespace?: string; extraArgs?: string[] } = {}): Promise<CommandResult> {
  const dir = await tempDir(t, 'vigil-chart-');
  const file = await writeValues(dir, values);
  return runHelm(['template', opts.release ?? 'vigil', CHART_DIR, '--namespace', opts.namespace ?? 'vigil', '-f', file, ...(opts.extraArgs ?? [])], { home: dir });
}

/** `helm lint --strict` of the chart with these arguments: like `helm template`, it needs no cluster. */
export async function helmLint(t: TestContext, args: string[]): Promise<CommandResult> {
  return runHelm(['lint', CHART_DIR, '--strict', ...args], { home: await tempDir(t, 'vigil-chart-') });
}

export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && typeof o === 'object');
}

/** The rendered objects; fails the test with helm's message when it did not render. */
export async function renderChart(t: TestContext, values: Record<string, unknown>, opts: { release?: string; namespace?: string } = {}): Promise<KubeObject[]> {
  const result = await helmTemplate(t, values, opts);
  if (result.code !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseObjects(result.stdout);
}

export function find(objects: KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

export function maybe(objects: KubeObject[], kind: string, name: string): KubeObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export function secretText(secret: KubeObject, key: string): string {
  const data = secret.data as Record<string, string> | undefined;
  const value = data?.[key];
  if (value === undefined) throw new Error(`Secret ${secret.metadata.name} has no key ${key}`);
  return Buffer.from(value, 'base64').toString('utf8');
}

export function configMapText(cm: KubeObject, key: string): string {
  const value = (cm.data as Record<string, string> | undefined)?.[key];
  if (value === undefined) throw new Error(`ConfigMap ${cm.metadata.name} has no key ${key}`);
  return value;
}
