// Short-lived access tickets for the URLs a browser cannot add a header to (a WebSocket, <video src>, a download link):
// an HMAC-signed scope — one camera's live view or media, or one job's result — with the caller and an expiry.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Role } from '../config/schema.js';

/** How long a ticket may start a request (a stream it started goes on past that). */
export const TICKET_TTL_MS = 5 * 60_000;

export type TicketScope =
  /** The live WebSocket of the camera. */
  | { purpose: 'live'; camera: string }
  /** The camera's recordings: its segment files and play. */
  | { purpose: 'media'; camera: string }
  /** The result of one archive job. */
  | { purpose: 'download'; job: string };

export interface TicketHolder {
  /** The name of the token the ticket was minted with (counted as that token by the stream limits). */
  name: string;
  role: Role;
}

const VERSION = 'v1';

/**
 * Signs with a key derived from the cluster token when there is one — every node of a cluster shares it, so a ticket
 * minted on one node opens the same camera on another (after a 307) — else from a key of this process alone.
 */
export class AccessTickets {
  readonly #clusterToken: () => string | undefined;
  readonly #now: () => number;
  readonly #ownSecret = randomBytes(32);

  constructor(clusterToken: () => string | undefined, now: () => number) {
    this.#clusterToken = clusterToken;
    this.#now = now;
  }

  mint(scope: TicketScope, holder: TicketHolder): { ticket: string; expiresAtMs: number } {
    const expiresAtMs = this.#now() + TICKET_TTL_MS;
    const payload = Buffer.from(JSON.stringify({ s: scopeKey(scope), e: Math.floor(expiresAtMs / 1000), n: holder.name, r: holder.role })).toString('base64url');
    return { ticket: `${VERSION}.${payload}.${this.#sign(payload)}`, expiresAtMs: Math.floor(expiresAtMs / 1000) * 1000 };
  }

  /** The holder when `ticket` is genuine, unexpired and for exactly `scope`; undefined otherwise. */
  verify(ticket: string, scope: TicketScope): TicketHolder | undefined {
    const [version, payload, mac] = ticket.split('.');
    if (version !== VERSION || payload === undefined || mac === undefined) return undefined;
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: { s?: unknown; e?: unknown; n?: unknown; r?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return undefined;
    }
    if (claims.s !== scopeKey(scope) || typeof claims.e !== 'number' || claims.e * 1000 <= this.#now()) return undefined;
    if (typeof claims.n !== 'string' || (claims.r !== 'viewer' && claims.r !== 'operator' && claims.r !== 'admin')) return undefined;
    return { name: claims.n, role: claims.r };
  }

  #sign(payload: string): string {
    const shared = this.#clusterToken();
    const key = createHmac('sha256', shared === undefined || shared === '' ? this.#ownSecret : Buffer.from(shared)).update('vigil access ticket key').digest();
    return createHmac('sha256', key).update(`${VERSION}.${payload}`).digest('base64url');
  }
}

function scopeKey(scope: TicketScope): string {
  return scope.purpose === 'download' ? `download:${scope.job}` : `${scope.purpose}:${scope.camera}`;
}
