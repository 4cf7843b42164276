// Which media of a camera's SDP native ingest records, or why it cannot (the camera then falls back to ffmpeg).
import type { Camera } from '../cameras/camera.js';
import { latmUnsupportedReason } from '../rtp/latm-depacketizer.js';
import type { Sdp, SdpMedia, SdpRtpMap } from '../rtsp/sdp.js';

export interface PlannedTrack {
  media: SdpMedia;
  encoding: string;
  clockRate: number;
  fmtp: Record<string, string>;
}

export type TrackPlan =
  | { ok: true; video: PlannedTrack; audio: PlannedTrack | undefined; audioSkipped: string | undefined }
  | { ok: false; unsupported: string };

const NATIVE_VIDEO = new Set(['H264', 'H265', 'HEVC']);

function firstPayload(media: SdpMedia): PlannedTrack | undefined {
  const pt = media.payloadTypes[0];
  if (pt === undefined) return undefined;
  const map: SdpRtpMap | undefined = media.rtpmap.get(pt);
  if (map === undefined) return undefined;
  return { media, encoding: map.encodingName.toUpperCase(), clockRate: map.clockRate, fmtp: { ...(media.fmtp.get(pt) ?? {}) } };
}

/** Why native ingest cannot store an audio payload as AAC, or undefined when it can (MPEG4-GENERIC, MP4A-LATM). */
function audioIssue(track: PlannedTrack | undefined): string | undefined {
  if (track === undefined) return 'unknown';
  if (track.encoding === 'MPEG4-GENERIC') return undefined;
  if (track.encoding === 'MP4A-LATM') return latmUnsupportedReason(track.fmtp);
  return track.encoding;
}

/**
 * The first video medium must be H.264 or H.265. Audio is the first audio medium when it is AAC (RFC 3640
 * MPEG4-GENERIC, or RFC 3016/6416 MP4A-LATM with its config in the SDP); other audio is left out in `auto` (MP4 cannot
 * carry G.711 either way — ffmpeg drops it too) but needs ffmpeg in `transcode`.
 */
export function planTracks(sdp: Sdp, audioMode: Camera['audio']): TrackPlan {
  const videoMedia = sdp.media.find((m) => m.type === 'video');
  if (videoMedia === undefined) return { ok: false, unsupported: 'the camera offers no video track' };
  const video = firstPayload(videoMedia);
  if (video === undefined) return { ok: false, unsupported: 'the video track names no payload format' };
  if (!NATIVE_VIDEO.has(video.encoding)) return { ok: false, unsupported: `video codec ${video.encoding}` };
  const audioMedia = audioMode === 'off' ? undefined : sdp.media.find((m) => m.type === 'audio');
  if (audioMedia === undefined) return { ok: true, video, audio: undefined, audioSkipped: undefined };
  const audio = firstPayload(audioMedia);
  const issue = audioIssue(audio);
  if (audio !== undefined && issue === undefined) return { ok: true, video, audio, audioSkipped: undefined };
  if (audioMode === 'transcode') return { ok: false, unsupported: `audio ${issue} to transcode into AAC` };
  return { ok: true, video, audio: undefined, audioSkipped: issue };
}
