// RTCP for one native session: sender reports map RTP time to the camera's wall clock; receiver reports go back.
import { randomInt } from 'node:crypto';
import { hostname } from 'node:os';
import type { Depacketizer } from '../rtp/depacketizer.js';
import { buildReceiverReport, delaySinceLastSrUnits, parseRtcp } from '../rtp/rtcp.js';
import type { RtpClock } from '../rtp/rtp-clock.js';

interface TrackRtcp {
  depacketizer: Depacketizer;
  clock: RtpClock;
  lastSr: { middle: number; at: number } | undefined;
}

/** Cameras drop a session that never reports (some after 60 s), and their SRs are what dates the pictures. */
export class ReceiverReports {
  readonly #tracks: TrackRtcp[];
  readonly #ssrc = randomInt(1, 0xffffffff);
  readonly #cname = `vigil@${hostname()}`;
  readonly #now: () => number;

  constructor(tracks: Array<{ depacketizer: Depacketizer; clock: RtpClock }>, now: () => number = Date.now) {
    this.#tracks = tracks.map((t) => ({ ...t, lastSr: undefined }));
    this.#now = now;
  }

  /** An RTCP packet from the camera about track `index`; true when it says goodbye (a BYE from the track's source). */
  onRtcp(index: number, packet: Buffer): boolean {
    const track = this.#tracks[index];
    if (track === undefined) return false;
    const summary = parseRtcp(packet);
    const ssrc = track.depacketizer.ssrc;
    for (const sr of summary.senderReports) {
      if (ssrc !== undefined && sr.ssrc !== ssrc) continue;
      track.clock.onSenderReport({ rtpTimestamp: sr.rtpTimestamp, ntpMs: sr.ntpMs });
      track.lastSr = { middle: sr.ntpMiddle, at: this.#now() };
    }
    // A BYE naming no source, or the one we receive (a stranger's BYE must not end our session).
    return summary.bye && (ssrc === undefined || summary.byeSsrcs.length === 0 || summary.byeSsrcs.includes(ssrc));
  }

  /** One compound RR+SDES per track that has received something. */
  build(): Array<{ index: number; packet: Buffer }> {
    const out: Array<{ index: number; packet: Buffer }> = [];
    this.#tracks.forEach((track, index) => {
      const report = track.depacketizer.receptionReport();
      if (report === undefined) return;
      const lastSr = track.lastSr;
      out.push({
        index,
        packet: buildReceiverReport({
          ssrc: this.#ssrc,
          cname: this.#cname,
          report: { ...report, lastSr: lastSr?.middle ?? 0, delaySinceLastSr: lastSr === undefined ? 0 : delaySinceLastSrUnits(this.#now() - lastSr.at) },
        }),
      });
    });
    return out;
  }
}
