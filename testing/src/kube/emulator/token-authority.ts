// Bearer tokens: the admin token, and ServiceAccount tokens issued through TokenRequest, which stop working when their account is deleted.
import { randomBytes, randomUUID } from 'node:crypto';
import type { UserInfo } from './types.js';

interface IssuedToken {
  namespace: string;
  name: string;
  uid: string;
  expiresAt: number;
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export class TokenAuthority {
  readonly adminToken = `vigil-emulator-admin-${randomBytes(18).toString('hex')}`;
  private readonly issued = new Map<string, IssuedToken>();

  constructor(private readonly findServiceAccount: (namespace: string, name: string) => ServiceAccountRef | undefined) {}

  /** A JWT-shaped token for a ServiceAccount, valid for `expirationSeconds` and while that account (same uid) exists. */
  issue(account: ServiceAccountRef, expirationSeconds: number, audiences: string[]): { token: string; expirationTimestamp: string } {
    const now = Math.floor(Date.now() / 1000);
    const exp = now + expirationSeconds;
    const header = { alg: 'RS256', kid: 'vigil-kube-emulator' };
    const payload = {
      aud: audiences,
      exp,
      iat: now,
      nbf: now,
      iss: 'https://kubernetes.default.svc.cluster.local',
      jti: randomUUID(),
      sub: `system:serviceaccount:${account.namespace}:${account.name}`,
      'kubernetes.io': { namespace: account.namespace, serviceaccount: { name: account.name, uid: account.uid } },
    };
    const token = `${base64url(header)}.${base64url(payload)}.${randomBytes(32).toString('base64url')}`;
    this.issued.set(token, { ...account, expiresAt: exp * 1000 });
    return { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  }

  /** The user a bearer token stands for, or undefined when it is unknown, expired or its account is gone. */
  authenticate(token: string | undefined): UserInfo | undefined {
    if (token === undefined) return undefined;
    if (token === this.adminToken) return { username: 'kubernetes-admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };
    const t = this.issued.get(token);
    if (t === undefined) return undefined;
    if (Date.now() > t.expiresAt) {
      this.issued.delete(token);
      return undefined;
    }
    const account = this.findServiceAccount(t.namespace, t.name);
    if (account === undefined || account.uid !== t.uid) return undefined;
    return {
      username: `system:serviceaccount:${t.namespace}:${t.name}`,
      uid: t.uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${t.namespace}`, 'system:authenticated'],
      serviceAccount: { namespace: t.namespace, name: t.name, uid: t.uid },
    };
  }
}
