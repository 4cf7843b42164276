// What the credential relay passes to ffmpeg of a camera's RTCP: every packet of a compound but the Sender Reports.

const SENDER_REPORT = 200;

/**
 * ffmpeg's RTP demuxer, for a session with more than one track, re-anchors every packet's time to the camera's latest
 * Sender Report (NTP wall clock ↔ RTP timestamp) from the first one on. A camera whose reports do not follow one steady
 * clock (most stamp the NTP time when they send, so encoder and network delay ride along) moves the track by that much
 * at every report, backwards too: ffmpeg then writes decode times one tick apart ("Non-monotonous DTS … changing to
 * N+1"), frames a player shows for no time. Native ingest times samples by their own RTP clock and uses the reports
 * for file names only; withholding the reports from ffmpeg gives its path the same rule. Receiver reports, SDES and
 * BYE (which ends ffmpeg's run) pass. Answers the packet unchanged when it holds no Sender Report, undefined when
 * nothing is left, and a malformed compound unchanged (ffmpeg judges it as before).
 */
export function withoutSenderReports(packet: Buffer): Buffer | undefined {
  const kept: Buffer[] = [];
  let removed = false;
  let at = 0;
  while (at + 4 <= packet.length) {
    const end = at + (packet.readUInt16BE(at + 2) + 1) * 4;
    if ((packet[at] ?? 0) >> 6 !== 2 || end > packet.length) return packet;
    if (packet[at + 1] === SENDER_REPORT) removed = true;
    else kept.push(packet.subarray(at, end));
    at = end;
  }
  if (!removed) return packet;
  return kept.length === 0 ? undefined : Buffer.concat(kept);
}
