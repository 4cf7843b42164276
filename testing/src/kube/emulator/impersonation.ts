// User impersonation (Impersonate-User / -Group / -Uid headers, `kubectl --as`): allowed by RBAC's impersonate verb, as kube-apiserver's impersonation filter does it.
import type { IncomingMessage } from 'node:http';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { badRequest } from './status-errors.js';
import type { UserInfo } from './types.js';

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

function headerValues(req: IncomingMessage, name: string): string[] {
  return (req.headersDistinct[name] ?? []).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * The user a request acts as: `requester`, or the user it impersonates once RBAC allows `impersonate` on each
 * users/serviceaccounts, groups and uids it names (403 otherwise, with the real message).
 */
export function actingUser(req: IncomingMessage, requester: UserInfo, rbac: RbacAuthorizer): UserInfo {
  const username = headerValues(req, 'impersonate-user')[0];
  const groups = headerValues(req, 'impersonate-group');
  const uid = headerValues(req, 'impersonate-uid')[0];
  const extras = Object.keys(req.headers).filter((h) => h.startsWith('impersonate-extra-'));
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined || extras.length > 0) throw badRequest('requested impersonation of groups, a uid or extra fields without impersonating a user');
    return requester;
  }
  const account = SERVICE_ACCOUNT_USER.exec(username);
  const checks = [
    account !== null
      ? { verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace: account[1] as string, name: account[2] as string }
      : { verb: 'impersonate', group: '', resource: 'users', name: username },
    ...groups.map((g) => ({ verb: 'impersonate', group: '', resource: 'groups', name: g })),
    ...(uid !== undefined ? [{ verb: 'impersonate', group: 'authentication.k8s.io', resource: 'uids', name: uid }] : []),
  ];
  for (const c of checks) if (!rbac.allowsResource(requester, c)) throw rbac.resourceForbidden(requester, c);
  const acting = [...groups];
  if (account !== null && groups.length === 0) acting.push('system:serviceaccounts', `system:serviceaccounts:${account[1] as string}`);
  if (username === 'system:anonymous') {
    if (!acting.includes('system:unauthenticated')) acting.push('system:unauthenticated');
  } else if (!acting.includes('system:authenticated')) acting.push('system:authenticated');
  return { username, uid: uid ?? '', groups: acting };
}
