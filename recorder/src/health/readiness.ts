// Runs the readiness checks with a deadline: at most one probe in flight per check, an unanswered check counts as failed.

/** What a check reports under `checks.<name>` in the readiness answer. */
export type CheckDetail = Record<string, string | boolean>;

export interface CheckOutcome {
  ok: boolean;
  detail: CheckDetail;
}

export interface ReadinessCheck {
  readonly name: string;
  /** May take long or hang; the runner never waits past its deadline. */
  probe(): Promise<CheckOutcome>;
  /** The detail reported when the probe has not answered by the deadline (or threw). */
  unanswered(): CheckDetail;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, CheckDetail>;
  /** Names of the failed checks, in check order. */
  failed: string[];
}

/** The readiness answer must come within 100 ms; this leaves room for serialising it. */
export const DEFAULT_CHECK_DEADLINE_MS = 75;

export class ReadinessChecks {
  readonly #checks: readonly ReadinessCheck[];
  readonly #deadlineMs: number;
  readonly #inFlight = new Map<string, Promise<CheckOutcome>>();

  constructor(checks: readonly ReadinessCheck[], deadlineMs = DEFAULT_CHECK_DEADLINE_MS) {
    this.#checks = checks;
    this.#deadlineMs = deadlineMs;
  }

  async evaluate(): Promise<ReadinessReport> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.#deadlineMs);
    });
    try {
      const outcomes = await Promise.all(
        this.#checks.map(async (check): Promise<CheckOutcome> => {
          const answered = await Promise.race([this.#probe(check), deadline]);
          return answered ?? { ok: false, detail: check.unanswered() };
        }),
      );
      const report: ReadinessReport = { ready: true, checks: {}, failed: [] };
      this.#checks.forEach((check, i) => {
        const outcome = outcomes[i] ?? { ok: false, detail: check.unanswered() };
        report.checks[check.name] = outcome.detail;
        if (!outcome.ok) {
          report.ready = false;
          report.failed.push(check.name);
        }
      });
      return report;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A probe still running from an earlier request is joined, not repeated: a hung database gets one query, not one per probe. */
  #probe(check: ReadinessCheck): Promise<CheckOutcome> {
    let running = this.#inFlight.get(check.name);
    if (running === undefined) {
      const started = check.probe().catch((): CheckOutcome => ({ ok: false, detail: check.unanswered() }));
      running = started;
      this.#inFlight.set(check.name, started);
      void started.finally(() => {
        if (this.#inFlight.get(check.name) === started) this.#inFlight.delete(check.name);
      });
    }
    return running;
  }
}
