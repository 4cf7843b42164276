// Hand-made init segments and fragments for tests of the fan-out logic (the bytes are never parsed).
import type { InitSegment, MediaFragment } from '../../src/media/fmp4-types.js';

export function fakeInit(): InitSegment {
  return { data: Buffer.from('init'), tracks: [] };
}

export function fakeFragment(n: number, keyframe: boolean, bytes = 1000): MediaFragment {
  const data = Buffer.alloc(bytes, n % 256);
  return { data, keyframe, decodeTime: n * 0.2, duration: 0.2, sequenceNumber: n };
}
