// Create-only endpoints that answer a question instead of storing an object: TokenRequest, TokenReview, SelfSubjectReview, (Self)SubjectAccessReview, SelfSubjectRulesReview.
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { badRequest, notFound } from './status-errors.js';
import type { TokenAuthority } from './token-authority.js';
import { isRecord, type KubeObject, type ResourceType, type UserInfo } from './types.js';

export interface ReviewContext {
  tokens: TokenAuthority;
  rbac: RbacAuthorizer;
  user: UserInfo;
  findServiceAccount(namespace: string, name: string): KubeObject | undefined;
  serviceAccountType: ResourceType;
}

/** POST .../serviceaccounts/<name>/token: issues a bound token, as `kubectl create token` asks. */
export function tokenRequest(ctx: ReviewContext, namespace: string, name: string, body: unknown): Record<string, unknown> {
  const sa = ctx.findServiceAccount(namespace, name);
  if (sa === undefined) throw notFound(ctx.serviceAccountType, name);
  const spec = isRecord(body) && isRecord(body.spec) ? body.spec : {};
  const expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  if (expirationSeconds < 600) throw badRequest('spec.expirationSeconds: Invalid value: may not specify a duration less than 10 minutes');
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? (spec.audiences as string[]) : ['https://kubernetes.default.svc.cluster.local'];
  const issued = ctx.tokens.issue({ namespace, name, uid: sa.metadata.uid as string }, expirationSeconds, audiences);
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds, boundObjectRef: null },
    status: issued,
  };
}

function userInfo(user: UserInfo): Record<string, unknown> {
  return { username: user.username, uid: user.uid, groups: user.groups };
}

export function review(ctx: ReviewContext, type: ResourceType, body: unknown): Record<string, unknown> {
  const obj = isRecord(body) ? body : {};
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const base = { kind: type.kind, apiVersion: `${type.group}/${type.version}`, metadata: { creationTimestamp: null } };
  switch (type.kind) {
    case 'TokenReview': {
      const user = ctx.tokens.authenticate(typeof spec.token === 'string' ? spec.token : undefined);
      return { ...base, spec, status: user === undefined ? { authenticated: false, user: {}, error: 'invalid bearer token' } : { authenticated: true, user: userInfo(user), audiences: spec.audiences ?? [] } };
    }
    case 'SelfSubjectReview':
      return { ...base, status: { userInfo: userInfo(ctx.user) } };
    case 'SelfSubjectAccessReview':
    case 'SubjectAccessReview': {
      let subject = ctx.user;
      if (type.kind === 'SubjectAccessReview') {
        const user = typeof spec.user === 'string' ? spec.user : '';
        const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
        const account = sa === null ? undefined : ctx.findServiceAccount(sa[1] as string, sa[2] as string);
        subject = {
          username: user,
          uid: typeof spec.uid === 'string' ? spec.uid : '',
          groups: Array.isArray(spec.groups) ? (spec.groups as string[]) : [],
          ...(sa !== null && account !== undefined ? { serviceAccount: { namespace: sa[1] as string, name: sa[2] as string, uid: account.metadata.uid as string } } : {}),
        };
      }
      const ra = isRecord(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
      const nra = isRecord(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
      let decision = { allowed: false, reason: '' };
      if (ra !== undefined) {
        decision = ctx.rbac.decideResource(subject, {
          verb: String(ra.verb ?? ''),
          group: String(ra.group ?? ''),
          resource: String(ra.resource ?? ''),
          ...(typeof ra.subresource === 'string' && ra.subresource !== '' ? { subresource: ra.subresource } : {}),
          ...(typeof ra.namespace === 'string' && ra.namespace !== '' ? { namespace: ra.namespace } : {}),
          ...(typeof ra.name === 'string' && ra.name !== '' ? { name: ra.name } : {}),
        });
      } else if (nra !== undefined) {
        decision = ctx.rbac.decidePath(subject, String(nra.verb ?? ''), String(nra.path ?? ''));
      }
      return { ...base, spec, status: { allowed: decision.allowed, ...(decision.reason !== '' ? { reason: decision.reason } : {}) } };
    }
    case 'SelfSubjectRulesReview': {
      const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
      return { ...base, spec, status: ctx.rbac.rulesReview(ctx.user, namespace) };
    }
    default:
      throw badRequest(`${type.kind} is not supported`);
  }
}
