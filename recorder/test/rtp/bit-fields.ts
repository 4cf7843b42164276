// Test support: bit-packed payloads built field by field (MSB first), for the AAC and MP4A-LATM depacketizer tests.

export type BitField = [value: number, width: number];

/** Writes fields MSB first, then pads the last byte with zero bits. */
export function bits(fields: BitField[]): Buffer {
  const total = fields.reduce((sum, [, w]) => sum + w, 0);
  const out = Buffer.alloc(Math.ceil(total / 8));
  let at = 0;
  for (const [value, width] of fields) {
    for (let i = width - 1; i >= 0; i--, at++) if (Math.floor(value / 2 ** i) % 2 === 1) out[at >> 3]! |= 0x80 >> (at & 7);
  }
  return out;
}
