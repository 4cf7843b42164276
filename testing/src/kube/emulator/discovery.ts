// Discovery documents: /version, /api, /apis, /apis/<group> and the APIResourceList of each group-version.
import type { ResourceRegistry } from './resource-registry.js';
import { groupVersion, type ResourceType } from './types.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '35',
  emulationMajor: '1',
  emulationMinor: '35',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '34',
  gitVersion: 'v1.35.2',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'go1.25.7',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const SUBRESOURCE_KINDS: Record<string, { kind: string; group?: string; version?: string; verbs: string[] }> = {
  status: { kind: '', verbs: ['get', 'patch', 'update'] },
  scale: { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
  token: { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] },
  finalize: { kind: '', verbs: ['update'] },
};

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(group: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: groupVersion(group, v), version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groupVersions().filter((g) => g.group !== '').map((g) => apiGroup(g.group, g.versions)),
  };
}

export function apiGroupDocument(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const g = registry.groupVersions().find((x) => x.group === group);
  if (g === undefined) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g.group, g.versions) };
}

function resourceEntries(t: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.verbs,
  };
  if (t.shortNames.length > 0) main.shortNames = t.shortNames;
  if (t.categories.length > 0) main.categories = t.categories;
  const subs = t.subresources.map((s) => {
    const info = SUBRESOURCE_KINDS[s] ?? { kind: t.kind, verbs: ['get'] };
    return {
      name: `${t.plural}/${s}`,
      singularName: '',
      namespaced: t.namespaced,
      ...(info.group !== undefined ? { group: info.group, version: info.version } : {}),
      kind: info.kind === '' ? t.kind : info.kind,
      verbs: info.verbs,
    };
  });
  return [main, ...subs];
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = registry.resourcesOf(group, version);
  if (types.length === 0) return undefined;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources: types.flatMap(resourceEntries) };
}

/** The aggregated discovery document (apidiscovery.k8s.io/v2 APIGroupDiscoveryList) for /api or /apis. */
export function aggregatedDiscovery(registry: ResourceRegistry, legacy: boolean): Record<string, unknown> {
  const groups = registry.groupVersions().filter((g) => (legacy ? g.group === '' : g.group !== ''));
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        freshness: 'Current',
        resources: registry.resourcesOf(g.group, v).map((t) => ({
          resource: t.plural,
          responseKind: { group: t.group, version: t.version, kind: t.kind },
          scope: t.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: t.singular,
          verbs: t.verbs,
          ...(t.shortNames.length > 0 ? { shortNames: t.shortNames } : {}),
          ...(t.categories.length > 0 ? { categories: t.categories } : {}),
          ...(t.subresources.length > 0
            ? {
                subresources: t.subresources.map((s) => {
                  const info = SUBRESOURCE_KINDS[s] ?? { kind: t.kind, verbs: ['get'] };
                  return { subresource: s, responseKind: { group: info.group ?? t.group, version: info.version ?? t.version, kind: info.kind === '' ? t.kind : info.kind }, verbs: info.verbs };
                }),
              }
            : {}),
        })),
      })),
    })),
  };
}
