// HTTP Digest (RFC 7616: MD5, SHA-256 and their -sess variants, qop auth/auth-int, nonce counting) and Basic answers.
import { createHash, randomBytes } from 'node:crypto';
import { digestAlgorithm, type Challenge, type DigestAlgorithm } from './www-authenticate.js';

export interface Credentials {
  username: string;
  password: string;
}

/** Answers challenges of one kind for one camera; kept between fetches so the next request can authenticate up front. */
export interface AuthSession {
  readonly scheme: 'digest' | 'basic';
  authorization(method: string, uri: string): string;
}

export class BasicSession implements AuthSession {
  readonly scheme = 'basic';
  readonly #header: string;

  constructor(creds: Credentials) {
    this.#header = `Basic ${Buffer.from(`${creds.username}:${creds.password}`, 'utf8').toString('base64')}`;
  }

  authorization(): string {
    return this.#header;
  }
}

export interface DigestInputs {
  algorithm: DigestAlgorithm;
  username: string;
  password: string;
  realm: string;
  nonce: string;
  cnonce: string;
  nc: string;
  qop: 'auth' | 'auth-int' | undefined;
  method: string;
  uri: string;
}

/** The `response` value of RFC 7616 §3.4.1 (RFC 2069 form when qop is absent). Bodies are empty: we only GET. */
export function digestResponse(p: DigestInputs): string {
  const hash = (s: string): string => createHash(p.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5').update(s, 'utf8').digest('hex');
  let ha1 = hash(`${p.username}:${p.realm}:${p.password}`);
  if (p.algorithm.endsWith('-SESS')) ha1 = hash(`${ha1}:${p.nonce}:${p.cnonce}`);
  const ha2 = p.qop === 'auth-int' ? hash(`${p.method}:${p.uri}:${hash('')}`) : hash(`${p.method}:${p.uri}`);
  return p.qop === undefined ? hash(`${ha1}:${p.nonce}:${ha2}`) : hash(`${ha1}:${p.nonce}:${p.nc}:${p.cnonce}:${p.qop}:${ha2}`);
}

export class DigestSession implements AuthSession {
  readonly scheme = 'digest';
  readonly #creds: Credentials;
  readonly #challenge: Challenge;
  readonly #algorithm: DigestAlgorithm;
  readonly #qop: 'auth' | 'auth-int' | undefined;
  readonly #newCnonce: () => string;
  /** A -sess session key depends on the cnonce, so one cnonce serves the whole session. */
  readonly #sessionCnonce: string;
  #nc = 0;

  constructor(challenge: Challenge, creds: Credentials, newCnonce: () => string = () => randomBytes(16).toString('hex')) {
    const algorithm = digestAlgorithm(challenge);
    if (algorithm === undefined) throw new Error(`unsupported digest algorithm ${challenge.params['algorithm'] ?? ''}`);
    this.#challenge = challenge;
    this.#creds = creds;
    this.#algorithm = algorithm;
    this.#qop = chooseQop(challenge.params['qop']);
    this.#newCnonce = newCnonce;
    this.#sessionCnonce = newCnonce();
  }

  authorization(method: string, uri: string): string {
    this.#nc += 1;
    const nc = this.#nc.toString(16).padStart(8, '0');
    const cnonce = this.#algorithm.endsWith('-SESS') ? this.#sessionCnonce : this.#newCnonce();
    const realm = this.#challenge.params['realm'] ?? '';
    const nonce = this.#challenge.params['nonce'] ?? '';
    const userhash = this.#challenge.params['userhash']?.toLowerCase() === 'true';
    const hashName = this.#algorithm.startsWith('SHA-256') ? 'sha256' : 'md5';
    const username = userhash ? createHash(hashName).update(`${this.#creds.username}:${realm}`, 'utf8').digest('hex') : this.#creds.username;
    const response = digestResponse({ algorithm: this.#algorithm, username: this.#creds.username, password: this.#creds.password, realm, nonce, cnonce, nc, qop: this.#qop, method, uri });
    const parts = [`username=${quote(username)}`, `realm=${quote(realm)}`, `nonce=${quote(nonce)}`, `uri=${quote(uri)}`];
    if (this.#challenge.params['algorithm'] !== undefined) parts.push(`algorithm=${this.#challenge.params['algorithm']}`);
    if (this.#qop !== undefined) parts.push(`qop=${this.#qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
    parts.push(`response=${quote(response)}`);
    if (this.#challenge.params['opaque'] !== undefined) parts.push(`opaque=${quote(this.#challenge.params['opaque'])}`);
    if (userhash) parts.push('userhash=true');
    return `Digest ${parts.join(', ')}`;
  }
}

/** `auth` when offered, else `auth-int`; undefined for an RFC 2069 challenge without qop. */
function chooseQop(offered: string | undefined): 'auth' | 'auth-int' | undefined {
  if (offered === undefined) return undefined;
  const options = offered.split(',').map((s) => s.trim().toLowerCase());
  if (options.includes('auth')) return 'auth';
  if (options.includes('auth-int')) return 'auth-int';
  return undefined;
}

function quote(s: string): string {
  return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** A session that answers the challenge, or undefined when it names something we cannot compute. */
export function sessionFor(challenge: Challenge, creds: Credentials): AuthSession | undefined {
  if (challenge.scheme === 'basic') return new BasicSession(creds);
  if (challenge.scheme === 'digest' && digestAlgorithm(challenge) !== undefined) return new DigestSession(challenge, creds);
  return undefined;
}
