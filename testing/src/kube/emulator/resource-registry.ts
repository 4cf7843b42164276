// Which resources the server serves right now: the built-ins plus every version of every established CRD.
import { groupVersion, type ResourceType } from './types.js';

export class ResourceRegistry {
  private readonly byPath = new Map<string, ResourceType>();
  private readonly crdTypes = new Map<string, ResourceType[]>();
  /** Bumped on every change, so discovery and OpenAPI answers can be cached until then. */
  revision = 0;

  constructor(builtins: ResourceType[]) {
    for (const t of builtins) this.byPath.set(key(t.group, t.version, t.plural), t);
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byPath.get(key(group, version, plural));
  }

  /** The served type of a kind in a group-version (for apiVersion/kind in bodies and owner references). */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    for (const t of this.byPath.values()) {
      if (t.kind === kind && groupVersion(t.group, t.version) === apiVersion) return t;
    }
    return undefined;
  }

  all(): ResourceType[] {
    return [...this.byPath.values()];
  }

  /** The group-versions served, in discovery order: core first, then groups as registered. */
  groupVersions(): Array<{ group: string; versions: string[] }> {
    const groups = new Map<string, string[]>();
    for (const t of this.byPath.values()) {
      const versions = groups.get(t.group) ?? [];
      if (!versions.includes(t.version)) versions.push(t.version);
      groups.set(t.group, versions);
    }
    return [...groups.entries()].map(([group, versions]) => ({ group, versions }));
  }

  resourcesOf(group: string, version: string): ResourceType[] {
    return [...this.byPath.values()].filter((t) => t.group === group && t.version === version);
  }

  /** Replaces the served versions of one CRD (by its name); an empty list unregisters it. */
  setCustomTypes(crdName: string, types: ResourceType[]): void {
    for (const old of this.crdTypes.get(crdName) ?? []) this.byPath.delete(key(old.group, old.version, old.plural));
    if (types.length === 0) this.crdTypes.delete(crdName);
    else this.crdTypes.set(crdName, types);
    for (const t of types) this.byPath.set(key(t.group, t.version, t.plural), t);
    this.revision++;
  }

  /** Every version of the type with this storage bucket (for owner-reference lookups across versions). */
  typesOfStorage(storageKey: string): ResourceType[] {
    return [...this.byPath.values()].filter((t) => t.storageKey === storageKey);
  }
}

function key(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
