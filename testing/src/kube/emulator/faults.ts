// Fault injection state: clients cut off by token (refused or hung), added latency, injected error answers.
import type { Socket } from 'node:net';

export type CutOffMode = 'refuse' | 'hang';

export interface FailureRule {
  status: number;
  remaining: number | undefined;
  until: number | undefined;
  token: string | undefined;
}

export class FaultState {
  private readonly cutOffs = new Map<string, CutOffMode>();
  private failure: FailureRule | undefined;
  /** Sockets of requests left unanswered by a 'hang' cut-off; destroyed on restore of that token or close. */
  private readonly hung = new Map<string, Set<Socket>>();
  latencyMs = 0;

  cutOff(token: string, mode: CutOffMode): void {
    this.cutOffs.set(token, mode);
  }

  restore(token: string): void {
    this.cutOffs.delete(token);
    for (const socket of this.hung.get(token) ?? []) socket.destroy();
    this.hung.delete(token);
  }

  modeFor(token: string | undefined): CutOffMode | undefined {
    return token === undefined ? undefined : this.cutOffs.get(token);
  }

  /** Whether any cut-off is in force (the server then checks every connection's requests). */
  get anyCutOff(): boolean {
    return this.cutOffs.size > 0;
  }

  holdHung(token: string, socket: Socket): void {
    let set = this.hung.get(token);
    if (set === undefined) this.hung.set(token, (set = new Set()));
    set.add(socket);
    socket.once('close', () => set.delete(socket));
  }

  failRequests(opts: { status?: number; count?: number; forMs?: number; token?: string }): void {
    this.failure = {
      status: opts.status ?? 500,
      remaining: opts.count,
      until: opts.forMs === undefined ? undefined : Date.now() + opts.forMs,
      token: opts.token,
    };
  }

  clearFailures(): void {
    this.failure = undefined;
  }

  /** The status to answer this request with, if an injected failure applies (consuming one of its count). */
  takeFailure(token: string | undefined): number | undefined {
    const f = this.failure;
    if (f === undefined) return undefined;
    if (f.until !== undefined && Date.now() > f.until) {
      this.failure = undefined;
      return undefined;
    }
    if (f.token !== undefined && f.token !== token) return undefined;
    if (f.remaining !== undefined) {
      if (f.remaining <= 0) {
        this.failure = undefined;
        return undefined;
      }
      f.remaining--;
    }
    return f.status;
  }

  reset(): void {
    for (const token of [...this.cutOffs.keys()]) this.restore(token);
    for (const token of [...this.hung.keys()]) this.restore(token);
    this.failure = undefined;
    this.latencyMs = 0;
  }
}
