// Readiness check `license`: the license file is valid now (or absent and not required).
import type { LicenseVerdict } from '../license/license-verdict.js';
import type { ReadinessCheck } from './readiness.js';

export function licenseCheck(license: { check(): Promise<LicenseVerdict> }): ReadinessCheck {
  return {
    name: 'license',
    probe: async () => {
      const verdict = await license.check();
      return { ok: verdict.valid, detail: { valid: verdict.valid } };
    },
    unanswered: () => ({ valid: false }),
  };
}
