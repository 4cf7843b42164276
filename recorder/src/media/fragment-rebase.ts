// Shifts a fragment's decode times (tfdt) so that each segment file starts at time zero.
import { children, iterateBoxes } from './box-reader.js';
import type { InitSegment } from './fmp4-types.js';

/** Per-track tick offsets to subtract, computed from the segment's first video decode time. */
export type TrackOffsets = Map<number, bigint>;

export function trackOffsetsFor(init: InitSegment, startSeconds: number): TrackOffsets {
  const offsets: TrackOffsets = new Map();
  if (!Number.isFinite(startSeconds) || startSeconds <= 0) return offsets;
  for (const track of init.tracks) {
    offsets.set(track.trackId, BigInt(Math.round(startSeconds * track.timescale)));
  }
  return offsets;
}

/**
 * Returns the fragment bytes with every traf's baseMediaDecodeTime reduced by its track's offset
 * (never below zero). The input is not modified: it is shared with live viewers. Only the moof
 * box is copied; the returned list is meant for a vectored write.
 */
export function rebaseFragment(data: Buffer, offsets: TrackOffsets): Buffer[] {
  if (offsets.size === 0) return [data];
  for (const box of iterateBoxes(data, 0, data.length)) {
    if (box.type !== 'moof') continue;
    const moof = Buffer.from(data.subarray(box.start, box.end));
    const local = { ...box, start: 0, end: box.size };
    for (const traf of children(moof, local)) {
      if (traf.type !== 'traf') continue;
      let trackId: number | undefined;
      for (const child of children(moof, traf)) {
        if (child.type === 'tfhd') trackId = moof.readUInt32BE(child.start + child.headerSize + 4);
        else if (child.type === 'tfdt' && trackId !== undefined) patchTfdt(moof, child.start + child.headerSize, offsets.get(trackId) ?? 0n);
      }
    }
    return [data.subarray(0, box.start), moof, data.subarray(box.end)];
  }
  return [data];
}

function patchTfdt(buf: Buffer, at: number, offset: bigint): void {
  if (offset === 0n) return;
  const version = buf.readUInt8(at);
  if (version === 1) {
    const v = buf.readBigUInt64BE(at + 4) - offset;
    buf.writeBigUInt64BE(v < 0n ? 0n : v, at + 4);
  } else {
    const v = BigInt(buf.readUInt32BE(at + 4)) - offset;
    buf.writeUInt32BE(Number(v < 0n ? 0n : v), at + 4);
  }
}
