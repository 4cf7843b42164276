// Bearer-token authentication with roles viewer < operator < admin; tokens are stored as SHA-256 hashes only.
// A token is read from the Authorization header only, never from a URL; URLs carry short-lived tickets instead.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Role } from '../config/schema.js';
import { AccessTickets, type TicketScope } from './access-tickets.js';
import { ApiError } from './error-catalogue.js';

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export interface TokenEntry {
  name: string;
  role: Role;
  sha256: string;
}

export interface Caller {
  name: string;
  role: Role;
}

/** What a token is read from: a fastify request, or a raw WebSocket upgrade request with its parsed query. */
export interface TokenCarrier {
  headers: { authorization?: string | undefined };
  query?: unknown;
}

export class TokenAuthenticator {
  readonly #tokens: () => readonly TokenEntry[];
  #tokensSeen: readonly TokenEntry[] | undefined;
  #byHash = new Map<string, Caller>();
  readonly #clusterToken: () => string | undefined;
  readonly disabled: boolean;
  /** Tickets for URLs (a WebSocket, <video src>, a download link), minted by POST /api/tickets. */
  readonly tickets: AccessTickets;

  /** `clusterToken`: the secret shared by the nodes (read anew on each use: it may rotate), accepted only where a route allows it (assemble, downloads). */
  /** `tokens`: a fixed list, or a function giving the current list (a token file that may change). */
  constructor(tokens: readonly TokenEntry[] | (() => readonly TokenEntry[]), disabled: boolean, clusterToken: () => string | undefined = () => undefined, now: () => number = Date.now) {
    this.#tokens = typeof tokens === 'function' ? tokens : () => tokens;
    this.#clusterToken = clusterToken;
    this.disabled = disabled;
    this.tickets = new AccessTickets(clusterToken, now);
  }

  /**
   * Like require(), but a request whose query carries `ticket` is let through when the ticket is for exactly `scope`
   * (and the role `min` is one a ticket grants: tickets are minted for viewer endpoints). An invalid ticket is 401.
   */
  requireOrTicket(req: TokenCarrier, min: Role, scope: TicketScope): Caller {
    const ticket = (req.query as Record<string, unknown> | undefined)?.['ticket'];
    if (this.disabled || typeof ticket !== 'string' || ticket === '') return this.require(req, min);
    const holder = this.tickets.verify(ticket, scope);
    if (holder === undefined) throw new ApiError('unauthorized', 'the ticket is not valid for this request (expired, for another camera or purpose, or altered)');
    if (RANK[holder.role] < RANK[min]) throw new ApiError('forbidden', `this needs the ${min} role; the ticket's token has ${holder.role}`);
    return holder;
  }

  /** True when the request carries the cluster token. */
  isCluster(req: TokenCarrier): boolean {
    const token = bearerToken(req);
    const shared = this.#clusterToken();
    if (token === undefined || shared === undefined || shared === '') return false;
    return timingSafeEqual(Buffer.from(sha256Hex(token)), Buffer.from(sha256Hex(shared)));
  }

  /** Like require(), but a node presenting the cluster token is let through too. */
  requireOrCluster(req: TokenCarrier, min: Role): Caller {
    if (!this.disabled && this.isCluster(req)) return { name: 'cluster', role: 'viewer' };
    return this.require(req, min);
  }

  /** The caller a request's token identifies, or undefined when it carries none that is valid. */
  identify(req: TokenCarrier): Caller | undefined {
    if (this.disabled) return { name: 'anonymous', role: 'admin' };
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const tokens = this.#tokens();
    if (tokens !== this.#tokensSeen) {
      this.#tokensSeen = tokens;
      this.#byHash = new Map(tokens.map((t) => [t.sha256.toLowerCase(), { name: t.name, role: t.role }]));
    }
    return this.#byHash.get(sha256Hex(token));
  }

  /** Throws 401 without a valid token, 403 for a role below `min`. */
  require(req: TokenCarrier, min: Role): Caller {
    const caller = this.identify(req);
    if (caller === undefined) throw new ApiError('unauthorized', bearerToken(req) === undefined ? 'a bearer token is required' : 'the token is not valid');
    if (RANK[caller.role] < RANK[min]) throw new ApiError('forbidden', `this needs the ${min} role; the token has ${caller.role}`);
    return caller;
  }
}

function sha256Hex(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function bearerToken(req: TokenCarrier): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (m?.[1] !== undefined) return m[1];
  }
  return undefined;
}
