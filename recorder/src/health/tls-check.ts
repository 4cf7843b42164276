// Readiness check `tls`: the API can serve — it has its own certificate (not a provisional one) and that certificate has
// not ended. A certificate near its end is reported (`expiring`, the log, the metric, the RecorderNode condition) but
// still serves, so a failed renewal never takes every node out of its Service while their certificates are valid.
import type { CheckDetail, CheckOutcome, ReadinessCheck } from './readiness.js';

/** The served certificate's validity, read at every probe (a renewed certificate counts at once); undefined without TLS. */
export interface ServedCertificate {
  notAfter(): Date;
  notBefore?(): Date;
  /** Set while the node serves a provisional certificate and waits for its own (tls.kubernetes_csr): why it waits. */
  waiting?(): string | undefined;
}

/** A served certificate counts as expiring (reported: detail, log, metric, RecorderNode condition) this long before its end. */
export const TLS_EXPIRY_MARGIN_MS = 7 * 24 * 3600_000;

/**
 * How long before its end the served certificate counts as expiring: 7 days; for one that says when it began (a node
 * certificate of the CSR API) at most the last sixth of its lifetime, so a one-day certificate is not expiring all its life.
 */
export function expiryMarginMs(served: ServedCertificate): number {
  const start = served.notBefore?.().getTime();
  if (start === undefined) return TLS_EXPIRY_MARGIN_MS;
  return Math.min(TLS_EXPIRY_MARGIN_MS, Math.max(0, served.notAfter().getTime() - start) / 6);
}

export interface TlsCheckHooks {
  /** At every probe that finds the certificate near its end but still valid (the caller logs it once). */
  onExpiring?(notAfter: Date): void;
  /** At every probe that finds it ended: readiness fails (the caller logs it once). */
  onExpired?(notAfter: Date): void;
}

export function tlsCheck(served: ServedCertificate | undefined, now: () => number, hooks: TlsCheckHooks = {}): ReadinessCheck {
  return {
    name: 'tls',
    probe: async (): Promise<CheckOutcome> => {
      if (served === undefined) return { ok: true, detail: { configured: false } };
      const waiting = served.waiting?.();
      if (waiting !== undefined) return { ok: false, detail: { configured: true, waiting } };
      const notAfter = served.notAfter();
      const left = notAfter.getTime() - now();
      const expired = left <= 0;
      const expiring = left <= expiryMarginMs(served);
      if (expired) hooks.onExpired?.(notAfter);
      else if (expiring) hooks.onExpiring?.(notAfter);
      return { ok: !expired, detail: { configured: true, not_after: notAfter.toISOString(), expiring, expired } };
    },
    unanswered: (): CheckDetail => (served === undefined ? { configured: false } : { configured: true, not_after: served.notAfter().toISOString(), expiring: true, expired: served.notAfter().getTime() <= now() }),
  };
}
