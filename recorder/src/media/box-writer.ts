// ISO BMFF box writing: composable Buffers for rarely built boxes (init segments), in-place headers for hot paths (fragments).

export function u8(n: number): Buffer {
  const b = Buffer.alloc(1);
  b.writeUInt8(n);
  return b;
}

export function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

export function i16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

export function zeros(n: number): Buffer {
  return Buffer.alloc(n);
}

/** A four-character code as bytes; throws unless it is exactly four latin1 characters. */
export function fourcc(type: string): Buffer {
  const b = Buffer.from(type, 'latin1');
  if (b.length !== 4) throw new RangeError(`box type '${type}' is not four characters`);
  return b;
}

/** A four-character code as the 32-bit big-endian number writeUInt32BE puts back as those bytes. */
export function fourccCode(type: string): number {
  return fourcc(type).readUInt32BE(0);
}

/** A box with a 32-bit size; init-segment boxes never approach 4 GiB. */
export function box(type: string, ...payload: Buffer[]): Buffer {
  let size = 8;
  for (const p of payload) size += p.length;
  return Buffer.concat([u32(size), fourcc(type), ...payload], size);
}

export function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, u32((((version & 0xff) << 24) | (flags & 0xffffff)) >>> 0), ...payload);
}

/** Writes a box header at `off` (the caller has computed `size`); returns the offset after it. */
export function writeBoxHeader(buf: Buffer, off: number, size: number, typeCode: number): number {
  buf.writeUInt32BE(size, off);
  buf.writeUInt32BE(typeCode, off + 4);
  return off + 8;
}

/** Writes a FullBox header (size, type, version, flags); returns the offset after it. */
export function writeFullBoxHeader(buf: Buffer, off: number, size: number, typeCode: number, version: number, flags: number): number {
  buf.writeUInt32BE(size, off);
  buf.writeUInt32BE(typeCode, off + 4);
  buf.writeUInt32BE((((version & 0xff) << 24) | (flags & 0xffffff)) >>> 0, off + 8);
  return off + 12;
}
