// RBAC authorization: Roles, ClusterRoles (with aggregation) and their bindings decide what a non-admin user may do, with the real 403 message.
import type { ObjectStore } from './object-store.js';
import { labelSelectorObjectMatcher } from './label-selector.js';
import { forbidden, type KubeError } from './status-errors.js';
import { isRecord, type KubeObject, type UserInfo } from './types.js';

export interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ROLES = 'rbac.authorization.k8s.io/roles';
const CLUSTER_ROLES = 'rbac.authorization.k8s.io/clusterroles';
const ROLE_BINDINGS = 'rbac.authorization.k8s.io/rolebindings';
const CLUSTER_ROLE_BINDINGS = 'rbac.authorization.k8s.io/clusterrolebindings';

function has(list: string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(value));
}

function rulesOf(o: KubeObject | undefined): PolicyRule[] {
  return o !== undefined && Array.isArray(o.rules) ? (o.rules as PolicyRule[]) : [];
}

export class RbacAuthorizer {
  constructor(private readonly store: ObjectStore) {}

  private subjectMatches(user: UserInfo, subject: unknown, bindingNamespace: string | undefined): boolean {
    if (!isRecord(subject)) return false;
    if (subject.kind === 'User') return subject.name === user.username;
    if (subject.kind === 'Group') return typeof subject.name === 'string' && user.groups.includes(subject.name);
    if (subject.kind === 'ServiceAccount') {
      const ns = typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      return user.serviceAccount !== undefined && user.serviceAccount.name === subject.name && user.serviceAccount.namespace === ns;
    }
    return false;
  }

  private clusterRoleRules(name: string): PolicyRule[] {
    const role = this.store.get(CLUSTER_ROLES, undefined, name);
    if (role === undefined) return [];
    const aggregation = role.aggregationRule;
    if (!isRecord(aggregation) || !Array.isArray(aggregation.clusterRoleSelectors)) return rulesOf(role);
    const matchers = aggregation.clusterRoleSelectors.map((s) => labelSelectorObjectMatcher(s as Parameters<typeof labelSelectorObjectMatcher>[0]));
    const rules = [...rulesOf(role)];
    for (const other of this.store.list(CLUSTER_ROLES)) {
      if (other !== role && matchers.some((m) => m(other.metadata.labels))) rules.push(...rulesOf(other));
    }
    return rules;
  }

  /** The rules that apply to `user` in `namespace` (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string | undefined): PolicyRule[] {
    const rules: PolicyRule[] = [];
    for (const b of this.store.list(CLUSTER_ROLE_BINDINGS)) {
      if (!Array.isArray(b.subjects) || !b.subjects.some((s) => this.subjectMatches(user, s, undefined))) continue;
      const ref = b.roleRef as { kind?: string; name?: string } | undefined;
      if (ref?.kind === 'ClusterRole' && ref.name !== undefined) rules.push(...this.clusterRoleRules(ref.name));
    }
    if (namespace !== undefined) {
      for (const b of this.store.list(ROLE_BINDINGS, namespace)) {
        if (!Array.isArray(b.subjects) || !b.subjects.some((s) => this.subjectMatches(user, s, namespace))) continue;
        const ref = b.roleRef as { kind?: string; name?: string } | undefined;
        if (ref?.name === undefined) continue;
        if (ref.kind === 'ClusterRole') rules.push(...this.clusterRoleRules(ref.name));
        else if (ref.kind === 'Role') rules.push(...rulesOf(this.store.get(ROLES, namespace, ref.name)));
      }
    }
    return rules;
  }

  allowsResource(user: UserInfo, a: ResourceAttributes): boolean {
    if (user.groups.includes('system:masters')) return true;
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return this.rulesFor(user, a.namespace).some((r) =>
      has(r.verbs, a.verb) && has(r.apiGroups, a.group)
      && (has(r.resources, resource) || (a.subresource !== undefined && (r.resources ?? []).includes(`*/${a.subresource}`)))
      && (r.resourceNames === undefined || r.resourceNames.length === 0 || (a.name !== undefined && r.resourceNames.includes(a.name))));
  }

  allowsPath(user: UserInfo, verb: string, path: string): boolean {
    if (user.groups.includes('system:masters')) return true;
    return this.rulesFor(user, undefined).some((r) => has(r.verbs, verb) && (r.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1)))));
  }

  resourceForbidden(user: UserInfo, a: ResourceAttributes): KubeError {
    const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
    const subject = a.name !== undefined && a.name !== '' ? `${qualified} "${a.name}"` : qualified;
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace !== undefined ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    return forbidden(`${subject} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}`, {
      ...(a.name ? { name: a.name } : {}),
      group: a.group,
      kind: a.resource,
    });
  }

  pathForbidden(user: UserInfo, verb: string, path: string): KubeError {
    return forbidden(`forbidden: User "${user.username}" cannot ${verb} path "${path}"`);
  }
}
