// Readiness check `tls`: the certificate the API serves is not within a week of its end (renewal has failed or not run).
import type { CheckDetail, CheckOutcome, ReadinessCheck } from './readiness.js';

/** Readiness fails from this long before the served certificate's notAfter: time to notice a renewal that did not happen. */
export const TLS_EXPIRY_MARGIN_MS = 7 * 24 * 3600_000;

/** The served certificate's validity, read at every probe (a renewed certificate counts at once); undefined without TLS. */
export interface ServedCertificate {
  notAfter(): Date;
  notBefore?(): Date;
  /** Set while the node serves a provisional certificate and waits for its own (tls.kubernetes_csr): why it waits. */
  waiting?(): string | undefined;
}

/** Readiness fails from 7 days before the end; for a certificate that says when it began (a node certificate of the CSR API), at most the last sixth of its lifetime. */
export function expiryMarginMs(served: ServedCertificate): number {
  const start = served.notBefore?.().getTime();
  if (start === undefined) return TLS_EXPIRY_MARGIN_MS;
  return Math.min(TLS_EXPIRY_MARGIN_MS, Math.max(0, served.notAfter().getTime() - start) / 6);
}

/** `onExpiring` is called at every probe that finds the certificate within the margin (the caller logs it once). */
export function tlsCheck(served: ServedCertificate | undefined, now: () => number, onExpiring?: (notAfter: Date) => void): ReadinessCheck {
  return {
    name: 'tls',
    probe: async (): Promise<CheckOutcome> => {
      if (served === undefined) return { ok: true, detail: { configured: false } };
      const waiting = served.waiting?.();
      if (waiting !== undefined) return { ok: false, detail: { configured: true, waiting } };
      const notAfter = served.notAfter();
      const expiring = notAfter.getTime() - now() <= expiryMarginMs(served);
      if (expiring) onExpiring?.(notAfter);
      return { ok: !expiring, detail: { configured: true, not_after: notAfter.toISOString(), expiring } };
    },
    unanswered: (): CheckDetail => (served === undefined ? { configured: false } : { configured: true, not_after: served.notAfter().toISOString(), expiring: true }),
  };
}
