// The certificate the API serves: loaded at start, looked at again every few seconds (and on SIGHUP), swapped only for a
// good pair. A node whose certificate is issued later (tls.kubernetes_csr) starts on a provisional pair and waits.
import { stat } from 'node:fs/promises';
import type { SecureContextOptions } from 'node:tls';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../util/clock.js';
import { CertificateError, parseCertificatePair, readCertificatePair, type CertificateFiles, type CertificatePair } from './certificate-pair.js';
import { secureContextOptions } from './tls-policy.js';

/** How often the files are looked at: a renewed certificate is served within this (plus SETTLE_MS), well within a minute. */
export const CERTIFICATE_CHECK_INTERVAL_MS = 10_000;
/** A change is read once the files have stayed the same this long: a certificate and key written one after the other are read together. */
export const CERTIFICATE_SETTLE_MS = 1_000;

export interface ServingCertificateOptions extends CertificateFiles {
  log: Logger;
  clock: Clock;
  checkIntervalMs?: number;
}

/** inode, size and modification time of both files (following symlinks, as a Kubernetes Secret volume swaps them). */
async function filesStamp(files: CertificateFiles): Promise<string> {
  const [cert, key] = await Promise.all([stat(files.certFile), stat(files.keyFile)]);
  return `${cert.ino}:${cert.size}:${cert.mtimeMs}/${key.ino}:${key.size}:${key.mtimeMs}`;
}

function describe(pair: CertificatePair): Record<string, string | number> {
  return { serial: pair.serial, subject: pair.leaf.subject.replace(/\n/g, ', '), not_after: pair.notAfter.toISOString(), chain: pair.chainLength };
}

export class ServingCertificate {
  readonly #opts: ServingCertificateOptions;
  readonly #log: Logger;
  #pair: CertificatePair;
  /** The files as last read (whether that read gave a good pair or not): unchanged files are not read again. */
  #readStamp: string;
  /** A change seen but not read yet: read when the next look finds the same stamp. */
  #seenStamp: string | undefined;
  #reported: string | undefined;
  readonly #listeners: Array<(pair: CertificatePair) => void> = [];
  #timer: TimerHandle | undefined;
  #settleTimer: TimerHandle | undefined;
  #checking: Promise<void> | undefined;
  /** Set while the served pair is a provisional one: what the node waits for (a sentence for readiness and the gate). */
  #waiting: string | undefined;

  private constructor(opts: ServingCertificateOptions, pair: CertificatePair, stamp: string, waiting?: string) {
    this.#opts = opts;
    this.#log = opts.log.child({ component: 'tls' });
    this.#pair = pair;
    this.#readStamp = stamp;
    this.#waiting = waiting;
  }

  /**
   * A node that gets its certificate later: the files' pair when they hold a good one, else `provisional` (a
   * self-signed pair nobody trusts, so that the port speaks TLS for the kubelet's probes) until they do.
   */
  static async awaiting(opts: ServingCertificateOptions & { provisional: { certPem: string; keyPem: string } }): Promise<ServingCertificate> {
    try {
      const loaded = await ServingCertificate.load(opts);
      if (loaded.current.notAfter.getTime() > opts.clock.now()) return loaded;
      loaded.stop();
    } catch (err) {
      if (!(err instanceof CertificateError)) throw err;
    }
    const pair = parseCertificatePair(opts.provisional.certPem, opts.provisional.keyPem, { certFile: '(provisional)', keyFile: '(provisional)' });
    return new ServingCertificate(opts, pair, '', 'no certificate has been issued to this node yet');
  }

  /** What the node waits for while it serves a provisional pair; undefined once it serves a real one. */
  get waiting(): string | undefined {
    return this.#waiting;
  }

  /** Says (for readiness and the 503s) why the node still waits: its request's state. Ignored once it has a certificate. */
  setWaiting(reason: string): void {
    if (this.#waiting !== undefined) this.#waiting = reason;
  }

  /** Reads the pair at start; throws CertificateError naming the key and file when it cannot be served. */
  static async load(opts: ServingCertificateOptions): Promise<ServingCertificate> {
    const stamp = await filesStamp(opts).catch(() => '');
    const pair = await readCertificatePair(opts);
    const served = new ServingCertificate(opts, pair, stamp);
    served.#log.info({ cert_file: opts.certFile, ...describe(pair) }, 'serving HTTPS with the certificate of tls.cert_file');
    if (pair.notAfter.getTime() <= opts.clock.now()) served.#log.error({ cert_file: opts.certFile, not_after: pair.notAfter.toISOString() }, 'the certificate of tls.cert_file has expired; clients will refuse it until it is replaced');
    return served;
  }

  get current(): CertificatePair {
    return this.#pair;
  }

  /** What the TLS listener needs for the current pair (the house policy applied). */
  secureContextOptions(): SecureContextOptions {
    return secureContextOptions(this.#pair);
  }

  /** Called with every new pair that replaced the served one. */
  onChange(fn: (pair: CertificatePair) => void): void {
    this.#listeners.push(fn);
  }

  /** Looks at the files every CERTIFICATE_CHECK_INTERVAL_MS (or the interval given). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = this.#opts.clock.setInterval(() => void this.check(), this.#opts.checkIntervalMs ?? CERTIFICATE_CHECK_INTERVAL_MS);
    this.#timer.unref?.();
  }

  stop(): void {
    this.#opts.clock.clearInterval(this.#timer);
    this.#opts.clock.clearTimeout(this.#settleTimer);
    this.#timer = undefined;
  }

  /** One look at the files: a change is read once it has settled. Resolves when this look is done. */
  check(): Promise<void> {
    this.#checking ??= this.#look(false).finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  /** Resolves once the look in flight, if any, is done (a timer's look reads files: callers that move a clock wait). */
  idle(): Promise<void> {
    return this.#checking ?? Promise.resolve();
  }

  /** SIGHUP: read the files now, changed or not; resolves with whether the served certificate changed. */
  async reload(): Promise<boolean> {
    await this.#checking;
    const before = this.#pair;
    await this.#look(true);
    return this.#pair !== before;
  }

  async #look(force: boolean): Promise<void> {
    let stamp: string;
    try {
      stamp = await filesStamp(this.#opts);
    } catch (err) {
      // Waiting for a first certificate, missing files are the normal state, not an error.
      if (this.#waiting === undefined) this.#fail(`${(err as NodeJS.ErrnoException).path ?? 'a file'} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      return;
    }
    if (!force && stamp === this.#readStamp) return;
    if (!force && stamp !== this.#seenStamp) {
      this.#seenStamp = stamp;
      this.#opts.clock.clearTimeout(this.#settleTimer);
      this.#settleTimer = this.#opts.clock.setTimeout(() => void this.check(), CERTIFICATE_SETTLE_MS);
      this.#settleTimer.unref?.();
      return;
    }
    this.#seenStamp = undefined;
    this.#readStamp = stamp;
    let pair: CertificatePair;
    try {
      pair = await readCertificatePair(this.#opts);
      if (pair.notAfter.getTime() <= this.#opts.clock.now()) throw new CertificateError(`tls.cert_file: ${this.#opts.certFile}: the new certificate expired at ${pair.notAfter.toISOString()}`);
    } catch (err) {
      this.#fail(err instanceof Error ? err.message : String(err));
      return;
    }
    this.#reported = undefined;
    if (pair.certPem === this.#pair.certPem && pair.keyPem === this.#pair.keyPem) return;
    const previous = this.#pair;
    this.#pair = pair;
    if (this.#waiting !== undefined) {
      this.#waiting = undefined;
      this.#log.info({ cert_file: this.#opts.certFile, ...describe(pair) }, 'serving HTTPS with the certificate issued to this node; its API is served from now on');
      for (const fn of this.#listeners) fn(pair);
      return;
    }
    this.#log.info({ cert_file: this.#opts.certFile, ...describe(pair), previous_serial: previous.serial }, 'certificate renewed: new connections get the new certificate, open ones keep going');
    for (const fn of this.#listeners) fn(pair);
  }

  #fail(problem: string): void {
    if (this.#reported !== problem) {
      this.#log.error({ cert_file: this.#opts.certFile, key_file: this.#opts.keyFile, err: problem, serial: this.#pair.serial }, `the certificate files cannot be used; still serving the previous certificate: ${problem}`);
    }
    this.#reported = problem;
  }
}
