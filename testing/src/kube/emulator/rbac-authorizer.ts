// RBAC authorization as kube-apiserver's RBAC authorizer: Roles, ClusterRoles (with aggregation) and their bindings decide what a non-admin user may do, with the real 403 message, its reasons and the "allowed by" descriptions.
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

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Rules with where they came from ("RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns""). */
interface RuleSource {
  rules: PolicyRule[];
  describe: string;
}

export interface Decision {
  allowed: boolean;
  /** "RBAC: allowed by …" when allowed; "RBAC: role… not found" when a binding names a missing role; else "". */
  reason: string;
}

const ROLES = 'rbac.authorization.k8s.io/roles';
const CLUSTER_ROLES = 'rbac.authorization.k8s.io/clusterroles';
const ROLE_BINDINGS = 'rbac.authorization.k8s.io/rolebindings';
const CLUSTER_ROLE_BINDINGS = 'rbac.authorization.k8s.io/clusterrolebindings';
const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

function has(list: string[] | undefined, value: string): boolean {
  return list !== undefined && (list.includes('*') || list.includes(value));
}

function rulesOf(o: KubeObject | undefined): PolicyRule[] {
  return o !== undefined && Array.isArray(o.rules) ? (o.rules as PolicyRule[]) : [];
}

/** How RBAC names a subject in its reasons (describeSubject). */
function describeSubject(subject: Record<string, unknown>, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const ns = typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace;
    return `ServiceAccount ${JSON.stringify(`${String(subject.name)}/${ns}`)}`;
  }
  return `${String(subject.kind)} ${JSON.stringify(subject.name)}`;
}

function aggregate(errors: string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}

export class RbacAuthorizer {
  constructor(private readonly store: ObjectStore) {}

  /** Whether a binding subject is this user: ServiceAccounts by their username, as RBAC's appliesToUser does. */
  private subjectMatches(user: UserInfo, subject: unknown, bindingNamespace: string | undefined): subject is Record<string, unknown> {
    if (!isRecord(subject)) return false;
    if (subject.kind === 'User') return subject.name === user.username;
    if (subject.kind === 'Group') return typeof subject.name === 'string' && user.groups.includes(subject.name);
    if (subject.kind === 'ServiceAccount') {
      const ns = typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace;
      const m = SERVICE_ACCOUNT_USER.exec(user.username);
      return m !== null && m[1] === ns && m[2] === subject.name;
    }
    return false;
  }

  private clusterRoleRules(name: string): PolicyRule[] | undefined {
    const role = this.store.get(CLUSTER_ROLES, undefined, name);
    if (role === undefined) return undefined;
    const aggregation = role.aggregationRule;
    if (!isRecord(aggregation) || !Array.isArray(aggregation.clusterRoleSelectors)) return rulesOf(role);
    const matchers = aggregation.clusterRoleSelectors.map((s) => labelSelectorObjectMatcher(s as Parameters<typeof labelSelectorObjectMatcher>[0]));
    const rules = [...rulesOf(role)];
    for (const other of this.store.list(CLUSTER_ROLES)) {
      if (other !== role && matchers.some((m) => m(other.metadata.labels))) rules.push(...rulesOf(other));
    }
    return rules;
  }

  /** The rule sources that apply to `user` in `namespace` (cluster-wide bindings first), and the roles bindings name that do not exist. */
  private visit(user: UserInfo, namespace: string | undefined): { sources: RuleSource[]; errors: string[] } {
    const sources: RuleSource[] = [];
    const errors: string[] = [];
    for (const b of this.store.list(CLUSTER_ROLE_BINDINGS)) {
      const subject = Array.isArray(b.subjects) ? b.subjects.find((s) => this.subjectMatches(user, s, '')) : undefined;
      const ref = b.roleRef as { kind?: string; name?: string } | undefined;
      if (subject === undefined || ref?.kind !== 'ClusterRole' || ref.name === undefined) continue;
      const rules = this.clusterRoleRules(ref.name);
      if (rules === undefined) errors.push(`clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
      else sources.push({ rules, describe: `ClusterRoleBinding ${JSON.stringify(b.metadata.name)} of ClusterRole ${JSON.stringify(ref.name)} to ${describeSubject(subject as Record<string, unknown>, '')}` });
    }
    if (namespace !== undefined) {
      for (const b of this.store.list(ROLE_BINDINGS, namespace)) {
        const subject = Array.isArray(b.subjects) ? b.subjects.find((s) => this.subjectMatches(user, s, namespace)) : undefined;
        const ref = b.roleRef as { kind?: string; name?: string } | undefined;
        if (subject === undefined || ref?.name === undefined) continue;
        let rules: PolicyRule[] | undefined = [];
        if (ref.kind === 'ClusterRole') rules = this.clusterRoleRules(ref.name);
        else if (ref.kind === 'Role') {
          const role = this.store.get(ROLES, namespace, ref.name);
          rules = role === undefined ? undefined : rulesOf(role);
        }
        if (rules === undefined) errors.push(`${ref.kind === 'ClusterRole' ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found`);
        else sources.push({ rules, describe: `RoleBinding ${JSON.stringify(`${b.metadata.name as string}/${namespace}`)} of ${String(ref.kind)} ${JSON.stringify(ref.name)} to ${describeSubject(subject as Record<string, unknown>, namespace)}` });
      }
    }
    return { sources, errors };
  }

  /** The rules that apply to `user` in `namespace` (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string | undefined): PolicyRule[] {
    return this.visit(user, namespace).sources.flatMap((s) => s.rules);
  }

  private decide(user: UserInfo, namespace: string | undefined, matches: (r: PolicyRule) => boolean): Decision {
    if (user.groups.includes('system:masters')) return { allowed: true, reason: '' };
    const { sources, errors } = this.visit(user, namespace);
    const source = sources.find((s) => s.rules.some(matches));
    if (source !== undefined) return { allowed: true, reason: `RBAC: allowed by ${source.describe}` };
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
  }

  decideResource(user: UserInfo, a: ResourceAttributes): Decision {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return this.decide(user, a.namespace, (r) => has(r.verbs, a.verb) && has(r.apiGroups, a.group)
      && (has(r.resources, resource) || (a.subresource !== undefined && (r.resources ?? []).includes(`*/${a.subresource}`)))
      && (r.resourceNames === undefined || r.resourceNames.length === 0 || (a.name !== undefined && r.resourceNames.includes(a.name))));
  }

  decidePath(user: UserInfo, verb: string, path: string): Decision {
    return this.decide(user, undefined, (r) => has(r.verbs, verb) && (r.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1)))));
  }

  allowsResource(user: UserInfo, a: ResourceAttributes): boolean {
    return this.decideResource(user, a).allowed;
  }

  allowsPath(user: UserInfo, verb: string, path: string): boolean {
    return this.decidePath(user, verb, path).allowed;
  }

  /** The 403 of a denied resource request, as responsewriters.Forbidden writes it (the RBAC reason appended when there is one). */
  resourceForbidden(user: UserInfo, a: ResourceAttributes): KubeError {
    const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
    const subject = a.name !== undefined && a.name !== '' ? `${qualified} "${a.name}"` : qualified;
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace !== undefined ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
    const { reason } = this.decideResource(user, a);
    return forbidden(`${subject} is forbidden: User "${user.username}" cannot ${a.verb} resource "${resource}" in API group "${a.group}" ${scope}${reason === '' ? '' : `: ${reason}`}`, {
      ...(a.name ? { name: a.name } : {}),
      ...(a.group !== '' ? { group: a.group } : {}),
      kind: a.resource,
    });
  }

  pathForbidden(user: UserInfo, verb: string, path: string): KubeError {
    const { reason } = this.decidePath(user, verb, path);
    return forbidden(`forbidden: User "${user.username}" cannot ${verb} path "${path}"${reason === '' ? '' : `: ${reason}`}`);
  }

  /** What a SelfSubjectRulesReview answers: every rule that applies in the namespace, resource and non-resource apart. */
  rulesReview(user: UserInfo, namespace: string): { resourceRules: PolicyRule[]; nonResourceRules: PolicyRule[]; incomplete: boolean; evaluationError?: string } {
    const all: PolicyRule[] = user.groups.includes('system:masters') ? [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }] : [];
    const { sources, errors } = this.visit(user, namespace === '' ? undefined : namespace);
    for (const s of sources) all.push(...s.rules);
    const resourceRules = all.filter((r) => (r.nonResourceURLs ?? []).length === 0).map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) }));
    const nonResourceRules = all.filter((r) => (r.nonResourceURLs ?? []).length > 0).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] }));
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}) };
  }
}
