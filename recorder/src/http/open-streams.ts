// How many long-lived answers (live viewers, play streams) a node holds open, and the one rule that refuses more (429).
import type { z } from 'zod';
import { streamsSchema } from '../config/schema.js';
import { ApiError } from './error-catalogue.js';

export const STREAM_KINDS = ['live', 'play'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

export interface StreamLimit {
  /** Open streams of the kind on this node. */
  perNode: number;
  /** Open streams of the kind under one token (its name in the token list). */
  perToken: number;
}

export type StreamLimits = Record<StreamKind, StreamLimit>;

/** A stream admitted: release() once it ends (safe to call more than once). */
export interface StreamTicket {
  release(): void;
}

/** The limits of the configuration's `streams` key (its defaults when it is not given). */
export function streamLimits(config: z.infer<typeof streamsSchema> = streamsSchema.parse(undefined)): StreamLimits {
  return {
    live: { perNode: config.live.per_node, perToken: config.live.per_token },
    play: { perNode: config.play.per_node, perToken: config.play.per_token },
  };
}

const WHAT: Record<StreamKind, string> = { live: 'live viewers', play: 'play streams' };

export class OpenStreams {
  readonly #limits: StreamLimits;
  readonly #open: Record<StreamKind, { total: number; byToken: Map<string, number> }> = {
    live: { total: 0, byToken: new Map() },
    play: { total: 0, byToken: new Map() },
  };

  constructor(limits: StreamLimits) {
    this.#limits = limits;
  }

  /** Streams of the kind open now (the gauge). */
  count(kind: StreamKind): number {
    return this.#open[kind].total;
  }

  /**
   * Admits one more stream of `kind` for the token `token` (undefined: no token to count, with auth disabled), or
   * throws ApiError too_many_streams when the node or the token already holds its limit.
   */
  admit(kind: StreamKind, token: string | undefined): StreamTicket {
    const open = this.#open[kind];
    const limit = this.#limits[kind];
    if (open.total >= limit.perNode) throw new ApiError('too_many_streams', `this node already serves ${open.total} ${WHAT[kind]} (its limit is ${limit.perNode}); try again when one has ended`, { limit: limit.perNode, scope: 'node' });
    const mine = token === undefined ? 0 : (open.byToken.get(token) ?? 0);
    if (token !== undefined && mine >= limit.perToken) throw new ApiError('too_many_streams', `this token already has ${mine} ${WHAT[kind]} open on this node (its limit is ${limit.perToken}); close one first`, { limit: limit.perToken, scope: 'token' });
    open.total++;
    if (token !== undefined) open.byToken.set(token, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        open.total--;
        if (token === undefined) return;
        const left = (open.byToken.get(token) ?? 1) - 1;
        if (left > 0) open.byToken.set(token, left);
        else open.byToken.delete(token);
      },
    };
  }
}
