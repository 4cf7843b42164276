// Reads config.yaml and conf.d/*.yaml, merges them and validates the result with the schema.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { z } from 'zod';
import { configSchema, type VigilConfig } from './schema.js';

export const DEFAULT_CONFIG_FILE = '/etc/vigil/config.yaml';
export const DEFAULT_CONF_DIR = '/etc/vigil/conf.d';

/** A configuration that cannot be used; the message names the file, the key path and the problem. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ConfigPaths {
  file: string;
  confDir?: string;
}

type Plain = Record<string, unknown>;

function isPlainObject(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

export function formatIssues(issues: ReadonlyArray<z.core.$ZodIssue>): string {
  return issues.map((i) => `${formatPath(i.path)}: ${i.message}`).join('\n');
}

async function readYamlFile(path: string, required: boolean): Promise<Plain | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!required && code === 'ENOENT') return undefined;
    throw new ConfigError(`${path}: cannot be read (${code ?? String(err)})`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` at line ${err.linePos[0].line}` : '';
    throw new ConfigError(`${path}: not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return {};
  if (!isPlainObject(doc)) throw new ConfigError(`${path}: (root): must be a mapping of keys to values`);
  checkDuplicateCameraIds(path, doc);
  return doc;
}

function checkDuplicateCameraIds(path: string, doc: Plain): void {
  const cams = doc['cameras'];
  if (!Array.isArray(cams)) return;
  const seen = new Map<string, number>();
  cams.forEach((c, i) => {
    if (!isPlainObject(c) || typeof c['id'] !== 'string') return;
    const first = seen.get(c['id']);
    if (first !== undefined) {
      throw new ConfigError(`${path}: cameras[${i}].id: duplicates cameras[${first}].id "${c['id']}"`);
    }
    seen.set(c['id'], i);
  });
}

/** Later files override earlier keys; `cameras` lists are merged by id (a later entry replaces an earlier one). */
export function mergeConfigDocuments(base: Plain, overlay: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const prev = out[key];
    if (key === 'cameras' && Array.isArray(prev) && Array.isArray(value)) {
      out[key] = mergeCameraLists(prev, value);
    } else if (isPlainObject(prev) && isPlainObject(value)) {
      out[key] = mergeConfigDocuments(prev, value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function mergeCameraLists(base: unknown[], overlay: unknown[]): unknown[] {
  const out = [...base];
  for (const cam of overlay) {
    const id = isPlainObject(cam) ? cam['id'] : undefined;
    const at = typeof id === 'string' ? out.findIndex((c) => isPlainObject(c) && c['id'] === id) : -1;
    if (at >= 0) out[at] = cam;
    else out.push(cam);
  }
  return out;
}

/**
 * Environment variables that override the files: what differs per Pod when every recorder of a cluster
 * reads the same ConfigMap (Kubernetes sets them from the downward API and the operator).
 */
export const ENVIRONMENT_OVERRIDES: Readonly<Record<string, readonly string[]>> = {
  VIGIL_NODE_NAME: ['nodeName'],
  VIGIL_CLUSTER_NAMESPACE: ['cluster', 'namespace'],
  VIGIL_CLUSTER_ADVERTISE_URL: ['cluster', 'advertise_url'],
  VIGIL_CLUSTER_PUBLIC_URL: ['cluster', 'public_url'],
  VIGIL_DATABASE_URL: ['database', 'url'],
  VIGIL_TLS_DNS_NAMES: ['tls', 'kubernetes_csr', 'dns_names'],
};

function environmentOverlay(env: Readonly<Record<string, string | undefined>>): { doc: Plain; from: Map<string, string> } {
  const doc: Plain = {};
  const from = new Map<string, string>();
  for (const [name, path] of Object.entries(ENVIRONMENT_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    let at = doc;
    for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Plain;
    at[path[path.length - 1] as string] = value.trim();
    from.set(path.join('.'), name);
  }
  return { doc, from };
}

/**
 * Load, merge and validate; throws ConfigError with one `key.path: problem` line per issue.
 * `env` (process.env in the recorder) overrides the files through ENVIRONMENT_OVERRIDES.
 */
export async function loadConfig(paths: ConfigPaths, env: Readonly<Record<string, string | undefined>> = {}): Promise<VigilConfig> {
  let merged = (await readYamlFile(paths.file, true)) ?? {};
  if (paths.confDir !== undefined) {
    let names: string[] = [];
    try {
      names = (await readdir(paths.confDir)).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml')).sort();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new ConfigError(`${paths.confDir}: cannot be read (${code ?? String(err)})`);
    }
    for (const name of names) {
      const doc = await readYamlFile(join(paths.confDir, name), true);
      if (doc) merged = mergeConfigDocuments(merged, doc);
    }
  }
  const overlay = environmentOverlay(env);
  merged = mergeConfigDocuments(merged, overlay.doc);
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const files = paths.confDir === undefined ? paths.file : `${paths.file} (+ ${paths.confDir})`;
    const lines = parsed.error.issues.map((i) => {
      const fromEnv = overlay.from.get(i.path.map(String).join('.'));
      return `${formatPath(i.path)}: ${i.message}${fromEnv === undefined ? '' : ` (set by ${fromEnv})`}`;
    });
    throw new ConfigError(`invalid configuration in ${files}:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
