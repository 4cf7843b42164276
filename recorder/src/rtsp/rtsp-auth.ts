// RTSP authentication: parsing WWW-Authenticate challenges and computing Digest (RFC 2069/2617/7616) or Basic headers.
import { createHash, randomBytes } from 'node:crypto';
import { RtspAuthError } from './rtsp-errors.js';
import type { RtspCredentials } from './rtsp-url.js';

export { RtspAuthError };

export const REFUSED_MESSAGE = 'the camera refused the credentials (401)';

export interface AuthChallenge {
  /** Lower-cased scheme: 'digest', 'basic', ... */
  readonly scheme: string;
  /** Parameters by lower-cased name, unquoted. */
  readonly params: ReadonlyMap<string, string>;
}

/** Every challenge of every WWW-Authenticate header (one header may carry several, comma-separated). */
export function parseAuthenticate(headers: readonly string[]): AuthChallenge[] {
  const out: { scheme: string; params: Map<string, string> }[] = [];
  for (const header of headers) {
    let i = 0;
    const n = header.length;
    const skip = (chars: string): void => {
      while (i < n && chars.includes(header[i] as string)) i++;
    };
    while (i < n) {
      skip(' \t,');
      const start = i;
      while (i < n && !' \t,='.includes(header[i] as string)) i++;
      const token = header.slice(start, i);
      if (token === '') {
        i++;
        continue;
      }
      skip(' \t');
      const current = out[out.length - 1];
      if (header[i] !== '=' || current === undefined) {
        out.push({ scheme: token.toLowerCase(), params: new Map() });
        continue;
      }
      i++;
      skip(' \t');
      let value = '';
      if (header[i] === '"') {
        i++;
        while (i < n && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < n) i++;
          value += header[i];
          i++;
        }
        i++;
      } else {
        const vStart = i;
        while (i < n && header[i] !== ',') i++;
        value = header.slice(vStart, i).trim();
      }
      current.params.set(token.toLowerCase(), value);
    }
  }
  return out;
}

type DigestHash = 'md5' | 'sha256';

interface DigestAlgorithm {
  readonly name: string;
  readonly hash: DigestHash;
  readonly sess: boolean;
}

const DIGEST_ALGORITHMS: Record<string, DigestAlgorithm> = {
  'md5': { name: 'MD5', hash: 'md5', sess: false },
  'md5-sess': { name: 'MD5-sess', hash: 'md5', sess: true },
  'sha-256': { name: 'SHA-256', hash: 'sha256', sess: false },
  'sha-256-sess': { name: 'SHA-256-sess', hash: 'sha256', sess: true },
};

/** Stronger algorithms first: with several Digest challenges we answer the strongest we know. */
const PREFERENCE = ['sha-256', 'sha-256-sess', 'md5', 'md5-sess'];

function h(hash: DigestHash, text: string): string {
  return createHash(hash).update(text, 'utf8').digest('hex');
}

export interface DigestInput {
  /** 'MD5' (also when the challenge names none), 'MD5-sess', 'SHA-256' or 'SHA-256-sess'. */
  readonly algorithm: string;
  readonly user: string;
  readonly password: string;
  readonly realm: string;
  readonly nonce: string;
  readonly method: string;
  readonly uri: string;
  /** 'auth', 'auth-int', or undefined for RFC 2069 (no qop). */
  readonly qop?: string | undefined;
  /** 8 hex digits, e.g. '00000001'. */
  readonly nc?: string;
  readonly cnonce?: string;
  /** Entity body, for qop=auth-int. */
  readonly body?: Buffer;
}

/** The `response` value of a Digest Authorization header. */
export function digestResponse(input: DigestInput): string {
  const algorithm = DIGEST_ALGORITHMS[input.algorithm.toLowerCase()];
  if (algorithm === undefined) throw new RtspAuthError(`unsupported Digest algorithm ${input.algorithm}`);
  const hash = algorithm.hash;
  const cnonce = input.cnonce ?? '';
  let ha1 = h(hash, `${input.user}:${input.realm}:${input.password}`);
  if (algorithm.sess) ha1 = h(hash, `${ha1}:${input.nonce}:${cnonce}`);
  const ha2 =
    input.qop === 'auth-int'
      ? h(hash, `${input.method}:${input.uri}:${createHash(hash).update(input.body ?? Buffer.alloc(0)).digest('hex')}`)
      : h(hash, `${input.method}:${input.uri}`);
  if (input.qop === undefined) return h(hash, `${ha1}:${input.nonce}:${ha2}`);
  return h(hash, `${ha1}:${input.nonce}:${input.nc ?? '00000001'}:${cnonce}:${input.qop}:${ha2}`);
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

interface DigestState {
  readonly algorithm: DigestAlgorithm;
  readonly realm: string;
  readonly nonce: string;
  readonly opaque: string | undefined;
  readonly qop: 'auth' | 'auth-int' | undefined;
  /** Whether the challenge named an algorithm (RFC 2069 servers may choke on one they did not send). */
  readonly namedAlgorithm: boolean;
  nc: number;
}

function digestState(challenge: AuthChallenge): DigestState | undefined {
  const p = challenge.params;
  const nonce = p.get('nonce');
  const realm = p.get('realm');
  if (nonce === undefined || realm === undefined) return undefined;
  const named = p.get('algorithm');
  const algorithm = DIGEST_ALGORITHMS[(named ?? 'md5').toLowerCase()];
  if (algorithm === undefined) return undefined;
  const qops = (p.get('qop') ?? '').split(',').map((q) => q.trim().toLowerCase()).filter((q) => q !== '');
  let qop: DigestState['qop'];
  if (qops.length > 0) {
    if (qops.includes('auth')) qop = 'auth';
    else if (qops.includes('auth-int')) qop = 'auth-int';
    else return undefined;
  }
  return { algorithm, realm, nonce, opaque: p.get('opaque'), qop, namedAlgorithm: named !== undefined, nc: 0 };
}

/** What a 401's challenges changed; the session uses it to allow at most one retry per request. */
export interface ChallengeOutcome {
  readonly scheme: 'digest' | 'basic';
  /** The server marked our nonce stale (the credentials themselves were fine). */
  readonly stale: boolean;
  /** The new challenge has a different nonce than the one we answered. */
  readonly nonceChanged: boolean;
}

/**
 * Holds the credentials and the current challenge, and computes the Authorization header of every request
 * (Digest is bound to method and URI, so it is recomputed each time). Nothing here logs or throws secrets.
 */
export class RtspAuthenticator {
  private digest: DigestState | undefined;
  private basic = false;

  constructor(
    private readonly credentials: RtspCredentials | undefined,
    private readonly makeCnonce: () => string = () => randomBytes(12).toString('hex'),
  ) {}

  get hasCredentials(): boolean {
    return this.credentials !== undefined;
  }

  /** Whether requests already carry an Authorization header. */
  get active(): boolean {
    return this.digest !== undefined || this.basic;
  }

  /** Takes the challenges of a 401, preferring Digest over Basic. Throws RtspAuthError when none is usable. */
  accept(wwwAuthenticate: readonly string[]): ChallengeOutcome {
    if (this.credentials === undefined) throw new RtspAuthError('the camera requires credentials (401) and the URL has none');
    const challenges = parseAuthenticate(wwwAuthenticate);
    const digests = challenges
      .filter((c) => c.scheme === 'digest')
      .map((c) => ({ c, state: digestState(c) }))
      .filter((d): d is { c: AuthChallenge; state: DigestState } => d.state !== undefined)
      .sort((a, b) => PREFERENCE.indexOf(a.state.algorithm.name.toLowerCase()) - PREFERENCE.indexOf(b.state.algorithm.name.toLowerCase()));
    const best = digests[0];
    if (best !== undefined) {
      const previous = this.digest;
      this.digest = best.state;
      this.basic = false;
      return {
        scheme: 'digest',
        stale: (best.c.params.get('stale') ?? '').toLowerCase() === 'true',
        nonceChanged: previous !== undefined && previous.nonce !== best.state.nonce,
      };
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      this.digest = undefined;
      this.basic = true;
      return { scheme: 'basic', stale: false, nonceChanged: false };
    }
    const offered = [...new Set(challenges.map((c) => c.scheme))].join(', ') || 'none';
    throw new RtspAuthError(`the camera asks for an authentication scheme this client lacks (401; offered: ${offered})`);
  }

  /** The Authorization header for this request, or undefined before any challenge. */
  authorization(method: string, uri: string, body?: Buffer): string | undefined {
    const creds = this.credentials;
    if (creds === undefined) return undefined;
    if (this.basic) return `Basic ${Buffer.from(`${creds.user}:${creds.password}`, 'utf8').toString('base64')}`;
    const d = this.digest;
    if (d === undefined) return undefined;
    const parts = [
      `username=${quote(creds.user)}`,
      `realm=${quote(d.realm)}`,
      `nonce=${quote(d.nonce)}`,
      `uri=${quote(uri)}`,
    ];
    let response: string;
    if (d.qop === undefined) {
      response = digestResponse({ algorithm: d.algorithm.name, user: creds.user, password: creds.password, realm: d.realm, nonce: d.nonce, method, uri });
      parts.push(`response=${quote(response)}`);
    } else {
      d.nc++;
      const nc = d.nc.toString(16).padStart(8, '0');
      const cnonce = this.makeCnonce();
      response = digestResponse({
        algorithm: d.algorithm.name, user: creds.user, password: creds.password, realm: d.realm, nonce: d.nonce,
        method, uri, qop: d.qop, nc, cnonce, ...(body !== undefined ? { body } : {}),
      });
      parts.push(`response=${quote(response)}`, `qop=${d.qop}`, `nc=${nc}`, `cnonce=${quote(cnonce)}`);
    }
    if (d.namedAlgorithm) parts.push(`algorithm=${d.algorithm.name}`);
    if (d.opaque !== undefined) parts.push(`opaque=${quote(d.opaque)}`);
    return `Digest ${parts.join(', ')}`;
  }
}
