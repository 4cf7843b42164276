// Readiness check `storage`: the database holding the archive index answers `SELECT 1`.
import type { CheckOutcome, ReadinessCheck } from './readiness.js';

/** `ping` runs `SELECT 1`; undefined when no database is configured (then the check passes). */
export function storageCheck(ping: (() => Promise<unknown>) | undefined): ReadinessCheck {
  const configured = ping !== undefined;
  return {
    name: 'storage',
    probe: async (): Promise<CheckOutcome> => {
      if (ping === undefined) return { ok: true, detail: { configured: false, reachable: false } };
      try {
        await ping();
        return { ok: true, detail: { configured: true, reachable: true } };
      } catch {
        return { ok: false, detail: { configured: true, reachable: false } };
      }
    },
    unanswered: () => ({ configured, reachable: false }),
  };
}
