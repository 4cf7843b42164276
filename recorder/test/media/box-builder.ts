// Test helper that serialises ISO BMFF boxes for synthetic parser inputs.

export function u8(n: number): Buffer {
  return Buffer.from([n & 0xff]);
}

export function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function i32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

export function u64(n: number | bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

export function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
}

export function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xffffff)), ...payload);
}

/** A box written with size==1 and a 64-bit largesize. */
export function largeBox(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(1), Buffer.from(type, 'latin1'), u64(16 + body.length), body]);
}

export interface SyntheticTrack {
  trackId: number;
  handler: 'vide' | 'soun';
  timescale: number;
  trexDuration?: number;
  trexFlags?: number;
}

/** Minimal ftyp + moov (no sample entries) with trex defaults, enough for fragment parsing. */
export function syntheticInit(tracks: SyntheticTrack[], mdhdVersion: 0 | 1 = 0): Buffer {
  const traks = tracks.map((t) => {
    const tkhd = fullBox('tkhd', 0, 3, u32(0), u32(0), u32(t.trackId), u32(0), u32(0), Buffer.alloc(52), u32(320 << 16), u32(240 << 16));
    const mdhd =
      mdhdVersion === 1
        ? fullBox('mdhd', 1, 0, u64(0), u64(0), u32(t.timescale), u64(0), u32(0))
        : fullBox('mdhd', 0, 0, u32(0), u32(0), u32(t.timescale), u32(0), u32(0));
    const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from(t.handler, 'latin1'), Buffer.alloc(12), Buffer.from('x\0'));
    const stsd = fullBox('stsd', 0, 0, u32(0));
    return box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', box('stbl', stsd))));
  });
  const trexes = tracks.map((t) => fullBox('trex', 0, 0, u32(t.trackId), u32(1), u32(t.trexDuration ?? 0), u32(0), u32(t.trexFlags ?? 0)));
  const mvhd = fullBox('mvhd', 0, 0, Buffer.alloc(96));
  return Buffer.concat([
    box('ftyp', Buffer.from('isom', 'latin1'), u32(512), Buffer.from('iso5', 'latin1')),
    box('moov', mvhd, ...traks, box('mvex', ...trexes)),
  ]);
}
