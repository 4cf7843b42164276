// The release CA's rotation with a two-CA trust bundle (kubernetes.md "Node certificates"), as a pure plan: a new CA
// made well before the current one ends, trusted beside it, signing once the bundle holding it has been out long
// enough to reach every recorder, and the old one trusted until it ends. No I/O: the controller carries the steps out.

/** A new CA is made when the current one has less than this left (node certificates live 90 days by default). */
export const CA_ROTATE_BEFORE_MS = 365 * 86400_000;
/** The new CA signs once the bundle holding it has been published this long (ConfigMap volumes reach Pods in minutes). */
export const CA_DISTRIBUTION_MS = 24 * 3600_000;

export interface CaValidity {
  pem: string;
  notBefore: number;
  notAfter: number;
}

export interface CaRotationState {
  /** The CA that signs now (Secret vigil-ca). */
  current: CaValidity;
  /** Whether the operator made the current CA (a CA you brought is rotated only with a next CA you bring). */
  madeByOperator: boolean;
  /** The next CA (Secret vigil-ca-next) and when a bundle holding it was first published. */
  next?: CaValidity & { publishedAt?: number };
  /** The CA that signed before the last switch, trusted until it ends (vigil-ca's previous.crt). */
  previous?: CaValidity;
}

export type CaRotationStep =
  | { action: 'make-next'; why: string }
  | { action: 'switch'; why: string }
  | { action: 'forget-next'; why: string }
  | { action: 'drop-previous'; why: string }
  | { action: 'none'; recheckAt: number };

/** What the trust bundle holds: the signing CA, the next one and the previous one while they are valid; no duplicate. */
export function caBundle(state: CaRotationState, now: number): string {
  const pems = [state.current, state.next, state.previous]
    .filter((ca): ca is CaValidity => ca !== undefined && ca.notAfter > now)
    .map((ca) => ca.pem.trim());
  if (pems.length === 0) pems.push(state.current.pem.trim()); // an ended CA still names what it signed
  return `${[...new Set(pems)].join('\n')}\n`;
}

/** The one step to take now (the controller takes it and looks again), or when to look again. */
export function planCaRotation(state: CaRotationState, now: number): CaRotationStep {
  const { current, next, previous } = state;
  if (next !== undefined && next.pem.trim() === current.pem.trim()) return { action: 'forget-next', why: 'the next CA already signs' };
  if (previous !== undefined && previous.notAfter <= now) return { action: 'drop-previous', why: `the previous CA ended at ${new Date(previous.notAfter).toISOString()}` };
  if (next !== undefined && next.publishedAt !== undefined && next.notBefore <= now && now - next.publishedAt >= CA_DISTRIBUTION_MS) {
    return { action: 'switch', why: `the next CA has been in the trust bundle since ${new Date(next.publishedAt).toISOString()}` };
  }
  if (next === undefined && state.madeByOperator && current.notAfter - now <= CA_ROTATE_BEFORE_MS) {
    return { action: 'make-next', why: `the release CA ends at ${new Date(current.notAfter).toISOString()}` };
  }
  const times = [
    previous?.notAfter,
    next?.publishedAt === undefined ? undefined : Math.max(next.publishedAt + CA_DISTRIBUTION_MS, next.notBefore),
    next === undefined && state.madeByOperator ? current.notAfter - CA_ROTATE_BEFORE_MS : undefined,
  ].filter((t): t is number => t !== undefined && t > now);
  return { action: 'none', recheckAt: times.length > 0 ? Math.min(...times) : now + 24 * 3600_000 };
}
