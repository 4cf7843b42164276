// RFC 6381 / MSE codec strings from decoder configuration records (avcC, hvcC, esds).
import { parseAudioSpecificConfig, parseEsds } from './esds.js';
import type { InitSegment } from './fmp4-types.js';

function hex2(n: number): string {
  return n.toString(16).toUpperCase().padStart(2, '0');
}

/** 'avc1.PPCCLL' from an AVCDecoderConfigurationRecord (the avcC box payload). */
export function avcCodecString(avcC: Buffer, entryType: 'avc1' | 'avc3' = 'avc1'): string {
  if (avcC.length < 4) throw new Error('avcC too short');
  const profile = avcC.readUInt8(1);
  const compat = avcC.readUInt8(2);
  const level = avcC.readUInt8(3);
  return `${entryType}.${hex2(profile)}${hex2(compat)}${hex2(level)}`;
}

/** Reverses the bit order of a 32-bit value (hvcC profile compatibility flags are written reversed). */
function reverseBits32(v: number): number {
  let out = 0;
  for (let i = 0; i < 32; i++) {
    out = (out << 1) | ((v >>> i) & 1);
  }
  return out >>> 0;
}

/**
 * ISO/IEC 14496-15 Annex E codec string from an HEVCDecoderConfigurationRecord (the hvcC payload):
 * `<entry>.<space><profile>.<compat>.<tier><level>[.<constraint bytes>]`, e.g. 'hvc1.1.6.L93.B0'.
 */
export function hevcCodecString(hvcC: Buffer, entryType: 'hvc1' | 'hev1'): string {
  if (hvcC.length < 13) throw new Error('hvcC too short');
  const b1 = hvcC.readUInt8(1);
  const profileSpace = ['', 'A', 'B', 'C'][b1 >> 6] ?? '';
  const tier = b1 & 0x20 ? 'H' : 'L';
  const profileIdc = b1 & 0x1f;
  const compat = reverseBits32(hvcC.readUInt32BE(2)).toString(16).toUpperCase();
  const constraints: number[] = [];
  for (let i = 6; i < 12; i++) constraints.push(hvcC.readUInt8(i));
  while (constraints.length > 0 && constraints[constraints.length - 1] === 0) constraints.pop();
  const level = hvcC.readUInt8(12);
  const parts = [entryType, `${profileSpace}${profileIdc}`, compat, `${tier}${level}`];
  for (const c of constraints) parts.push(hex2(c));
  return parts.join('.');
}

/**
 * 'mp4a.OO[.A]' from an esds payload (after the FullBox version/flags): OO is the
 * objectTypeIndication in hex, A the AudioSpecificConfig audioObjectType in decimal (MPEG-4 audio
 * only). Returns '' when the descriptors cannot be read.
 */
export function mp4aCodecString(esdsPayload: Buffer): string {
  const esds = parseEsds(esdsPayload);
  if (!esds) return '';
  const base = `mp4a.${hex2(esds.objectTypeIndication)}`;
  const mpeg4Audio = [0x40, 0x66, 0x67, 0x68].includes(esds.objectTypeIndication);
  const asc = mpeg4Audio && esds.decoderSpecificInfo ? parseAudioSpecificConfig(esds.decoderSpecificInfo) : undefined;
  return asc ? `${base}.${asc.audioObjectType}` : base;
}

/** MIME type with codecs parameter for MSE, e.g. 'video/mp4; codecs="avc1.4D401E,mp4a.40.2"'. */
export function mimeTypeFor(init: InitSegment): string {
  const codecs = init.tracks.map((t) => t.codec).filter((c) => c !== '');
  const kind = init.video ? 'video' : init.tracks.some((t) => t.handler === 'soun') ? 'audio' : 'video';
  return codecs.length > 0 ? `${kind}/mp4; codecs="${codecs.join(',')}"` : `${kind}/mp4`;
}
