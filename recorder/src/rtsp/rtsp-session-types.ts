// The RTSP session's public shapes: open() options with the callbacks and their buffer rule, tracks, PLAY's result.
import type { ReadScheduler } from './read-scheduler.js';
import type { RtspLogger } from './rtsp-connection.js';
import type { RtpInfoEntry } from './rtsp-session-headers.js';
import type { SdpMedia } from './sdp.js';

export interface RtspSessionOptions {
  /** rtsp:// or rtsps:// URL; credentials in the userinfo (percent-encoded) never leave the process. */
  readonly url: string;
  /** 'tcp' (default): RTP interleaved on the RTSP connection. 'udp': a local port pair per track. */
  readonly transport?: 'tcp' | 'udp';
  /**
   * When the first SETUP is refused for its transport (461 Unsupported Transport, or 400/406/451 as some servers
   * answer), ask for the other one on the same connection (default false).
   */
  readonly fallbackTransport?: boolean;
  /** Connect and per-request timeout (default 10 000 ms). */
  readonly timeoutMs?: number;
  readonly userAgent?: string;
  /** The recorder's one ReadScheduler, shared by every session. */
  readonly readScheduler: ReadScheduler;
  /** Whether nobody watches the stream live right now: its reads may then wait for the scheduler's idle tick. */
  readonly idle?: () => boolean;
  /** rtsps:// only; default true. */
  readonly tlsRejectUnauthorized?: boolean;
  readonly log?: RtspLogger;
  /**
   * One RTP packet of track `track` (an index into session.tracks): `buffer[start, end)`. Over TCP `buffer` is A READ
   * BUFFER SHARED BY ALL SESSIONS: valid only until this call returns; copy anything kept longer. No view is made per
   * packet (at thousands of packets a second the views are most of the garbage). An exception thrown here closes
   * the session with it.
   */
  readonly onRtp?: (track: number, buffer: Buffer, start: number, end: number) => void;
  /** One RTCP (compound) packet, a view of its own (RTCP is rare); the same lifetime rule as onRtp. */
  readonly onRtcp?: (track: number, packet: Buffer) => void;
  /**
   * Called exactly once after open() resolved, when the session ends: err undefined after close(), else why
   * (RtspClosedError, RtspTimeoutError for a keep-alive without answer, RtspProtocolError, ...).
   */
  readonly onClose?: (err?: Error) => void;
}

export interface RtspTrack {
  /** The number onRtp/onRtcp/sendRtcp use: the position in the list given to setup(). */
  readonly index: number;
  readonly media: SdpMedia;
  /** The interleaved channels (TCP) or the local UDP ports. */
  readonly rtpChannel: number | undefined;
  readonly rtcpChannel: number | undefined;
  readonly clientPort: number | undefined;
  /** From the SETUP answer's Transport header, when the camera says. */
  readonly ssrc: number | undefined;
  /** From PLAY's RTP-Info: the first packet's sequence number and RTP timestamp, when the camera says. */
  rtpInfo: { readonly seq: number | undefined; readonly rtptime: number | undefined } | undefined;
}

export interface RtspPlayResult {
  /** The PLAY answer's Range header, e.g. 'npt=0.000-'. */
  readonly range: string | undefined;
  /** RTP-Info entries, each with the index of the track it names (undefined when no track matches). */
  readonly rtpInfo: readonly (RtpInfoEntry & { readonly track: number | undefined })[];
}
