// What a camera hub hands its subscribers: the init segment, media fragments and the end of a stream.
import type { InitSegment, MediaFragment } from '../media/fmp4-types.js';

/** Why a stream ended: camera silent, ffmpeg exited, camera stopped by the user or at shutdown. */
export type StreamEndReason = 'stalled' | 'exited' | 'stopped';

export type StreamItem =
  | { type: 'init'; init: InitSegment }
  | { type: 'fragment'; fragment: MediaFragment; receivedAt: number }
  | { type: 'end'; reason: StreamEndReason };

export type SubscriberKind = 'recording' | 'live';

export function itemBytes(item: StreamItem): number {
  if (item.type === 'init') return item.init.data.length;
  if (item.type === 'fragment') return item.fragment.data.length;
  return 0;
}
