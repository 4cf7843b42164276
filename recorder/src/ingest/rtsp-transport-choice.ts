// Which transport (RTP interleaved over TCP, or UDP) to ask a camera for next, why, and what the camera taught us.

export type RtspTransport = 'tcp' | 'udp';

/** What GET /api/cameras shows: the transport in use (or to be tried next) and why that one. */
export interface RtspTransportStatus {
  transport: RtspTransport;
  reason: string;
}

export interface RtspTransportChoiceOptions {
  /** `rtsp_transport` (or the Camera's spec.rtspTransport) when set: only that one is ever tried. */
  pinned: RtspTransport | undefined;
  /** What worked for this camera before (kept in work_dir across restarts). */
  remembered: RtspTransport | undefined;
  /** Called when what works changes, to keep it. */
  remember?(transport: RtspTransport): void;
}

const OTHER: Readonly<Record<RtspTransport, RtspTransport>> = { tcp: 'udp', udp: 'tcp' };
const NAME: Readonly<Record<RtspTransport, string>> = { tcp: 'TCP', udp: 'UDP' };

/**
 * Unset, the transport is automatic: TCP first (one connection passes NAT and firewalls, and never reorders or loses a
 * packet), UDP when the camera refuses TCP. A camera's answer is remembered: across reconnects in this object, across
 * restarts through `remember`. Both ingest paths (native and ffmpeg) share one choice per camera.
 */
export class RtspTransportChoice {
  readonly #pinned: RtspTransport | undefined;
  readonly #remember: ((transport: RtspTransport) => void) | undefined;
  #current: RtspTransport;
  #reason: string;
  #worked: RtspTransport | undefined;
  /** Transports that failed since one last worked: when both have, trying again at once would only loop. */
  readonly #failed = new Set<RtspTransport>();

  constructor(opts: RtspTransportChoiceOptions) {
    this.#pinned = opts.pinned;
    this.#remember = opts.remember;
    if (opts.pinned !== undefined) {
      this.#current = opts.pinned;
      this.#reason = 'set by rtsp_transport';
    } else if (opts.remembered !== undefined) {
      this.#current = opts.remembered;
      this.#worked = opts.remembered;
      this.#reason = `automatic: ${NAME[opts.remembered]} worked with this camera before`;
    } else {
      this.#current = 'tcp';
      this.#reason = 'automatic: TCP first';
    }
  }

  /** The transport to ask for now. */
  get current(): RtspTransport {
    return this.#current;
  }

  /** Whether the other transport may be tried when this one fails (not when rtsp_transport pins one). */
  get automatic(): boolean {
    return this.#pinned === undefined;
  }

  get status(): RtspTransportStatus {
    return { transport: this.#current, reason: this.#reason };
  }

  /**
   * The camera refused `transport` (a SETUP answered 461 or 400, or no RTP over UDP). Switches to the other one unless
   * pinned; returns whether trying it at once makes sense (it has not failed too since something last worked).
   */
  refused(transport: RtspTransport, why: string): boolean {
    if (this.#pinned !== undefined) return false;
    this.#failed.add(transport);
    const other = OTHER[transport];
    // Media over the other one may already have been seen (some servers send RTP right after SETUP, before PLAY).
    if (this.#current === transport) this.#current = other;
    this.#reason = `automatic: the camera refused ${NAME[transport]} (${why})`;
    return !this.#failed.has(other);
  }

  /** Media arrived over `transport`: it is the one to use from now on. */
  worked(transport: RtspTransport): void {
    this.#failed.clear();
    if (this.#worked === transport) return;
    this.#worked = transport;
    this.#current = transport;
    if (this.#pinned === undefined) this.#remember?.(transport);
  }
}
