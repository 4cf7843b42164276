// Picks the depacketizer for a track from its SDP rtpmap/fmtp, or says (UnsupportedPayloadError) that ffmpeg must ingest it.
//
// Usage, per track of a DESCRIBE answer:
//   const d = createDepacketizer('H264', 90000, { 'packetization-mode': '1', 'sprop-parameter-sets': '…' }, onUnit);
//   for each RTP packet of the track:  d.push(packet, Date.now());   // packet may be reused after the call
//   for each RTCP packet:  parseRtcp(p).senderReports → RtpClock.onSenderReport, and now and then send
//                          buildReceiverReport({ ssrc, cname, report: { ...d.receptionReport(), lastSr, delaySinceLastSr } })
// Video units carry `parameterSetsVersion`; when it differs from the one the init segment was built with, rebuild it
// from `d.parameterSets`. See depacketizer.ts for the interfaces.
import type { AccessUnit } from './access-unit.js';
import { AacDepacketizer } from './aac-depacketizer.js';
import { UnsupportedPayloadError, type AnyDepacketizer } from './depacketizer.js';
import { H264Depacketizer } from './h264-depacketizer.js';
import { H265Depacketizer } from './h265-depacketizer.js';
import { LatmDepacketizer } from './latm-depacketizer.js';

export { UnsupportedPayloadError } from './depacketizer.js';
export type { AacConfig, AnyDepacketizer, AudioDepacketizer, Depacketizer, ReceptionReport, VideoDepacketizer } from './depacketizer.js';

/**
 * A depacketizer for `encoding` (the rtpmap encoding name, any case: H264, H265 or HEVC, MPEG4-GENERIC, MP4A-LATM) at
 * `clockRate`, with the track's fmtp parameters (keys lower-cased). `onUnit` receives every whole access unit; it is
 * a video unit from H.264/H.265 and an audio unit (an AAC frame) from MPEG4-GENERIC and MP4A-LATM, as the returned depacketizer's `kind` says.
 * Throws `UnsupportedPayloadError` for anything else, or a variant we do not handle.
 */
export function createDepacketizer(encoding: string, clockRate: number, fmtp: Record<string, string>, onUnit: (unit: AccessUnit) => void): AnyDepacketizer {
  const name = encoding.trim().toUpperCase();
  const options = { clockRate, fmtp, onUnit };
  if (name === 'H264') return new H264Depacketizer(options);
  if (name === 'H265' || name === 'HEVC') return new H265Depacketizer(options);
  if (name === 'MPEG4-GENERIC') return new AacDepacketizer(options);
  if (name === 'MP4A-LATM') return new LatmDepacketizer(options);
  throw new UnsupportedPayloadError(encoding.trim() === '' ? '(no encoding name)' : encoding.trim());
}
