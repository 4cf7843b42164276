// Re-judges the license file when asked (readiness) and logs each change of verdict once.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../util/clock.js';
import { judgeLicense, type LicenseSettings, type LicenseVerdict } from './license-verdict.js';

export class LicenseMonitor {
  readonly #settings: LicenseSettings;
  readonly #log: Logger;
  readonly #clock: Clock;
  #lastState: string | undefined;

  constructor(settings: LicenseSettings, log: Logger, clock: Clock = systemClock) {
    this.#settings = settings;
    this.#log = log.child({ component: 'license' });
    this.#clock = clock;
  }

  /** Reads the file again each time, so a renewed license counts without a restart. Recording never depends on it. */
  async check(): Promise<LicenseVerdict> {
    const verdict = await judgeLicense(this.#settings, new Date(this.#clock.now()));
    const key = verdict.valid ? verdict.state : `${verdict.state}:${verdict.reason}`;
    if (key !== this.#lastState) {
      this.#lastState = key;
      if (!verdict.valid) this.#log.error({ license_file: this.#settings.file, state: verdict.state }, `license invalid: ${verdict.reason}; readiness fails, recording goes on`);
      else if (verdict.state === 'absent') this.#log.info({ license_file: this.#settings.file }, 'no license file; license.required is false, so none is needed');
      else this.#log.info({ license_file: this.#settings.file, customer: verdict.customer, not_after: verdict.not_after, max_cameras: verdict.max_cameras }, 'license valid');
    }
    return verdict;
  }
}
