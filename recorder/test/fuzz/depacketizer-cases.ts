// The depacketizers the fuzz suite feeds: one entry per payload format; a new depacketizer joins by adding its entry here.

export interface DepacketizerFuzzCase {
  /** Names the property in test output and in bench/fuzz-parsers.js. */
  name: string;
  /** The rtpmap encoding name given to createDepacketizer. */
  encoding: string;
  clockRate: number;
  fmtp: Record<string, string>;
  /** First payload bytes worth trying often (NAL unit types, aggregation and fragmentation headers), besides random ones. */
  payloadHeads: number[][];
}

export const DEPACKETIZER_FUZZ_CASES: DepacketizerFuzzCase[] = [
  {
    name: 'H.264 depacketizer',
    encoding: 'H264',
    clockRate: 90_000,
    fmtp: { 'packetization-mode': '1' },
    // single NAL (1 slice, 5 IDR, 7 SPS, 8 PPS), STAP-A 24, FU-A 28 with start/end/middle, and types we refuse (25-27, 29)
    payloadHeads: [[0x61], [0x65], [0x67], [0x68], [0x78], [0x7c, 0x85], [0x7c, 0x45], [0x7c, 0x05], [0x79], [0x7d, 0x85]],
  },
  {
    name: 'H.265 depacketizer',
    encoding: 'H265',
    clockRate: 90_000,
    fmtp: {},
    // single NAL (1 trail, 19 IDR, 32 VPS, 33 SPS, 34 PPS), AP 48, FU 49 with start/end/middle, PACI 50
    payloadHeads: [[0x02, 0x01], [0x26, 0x01], [0x40, 0x01], [0x42, 0x01], [0x44, 0x01], [0x60, 0x01], [0x62, 0x01, 0x93], [0x62, 0x01, 0x53], [0x62, 0x01, 0x13], [0x64, 0x01]],
  },
  {
    name: 'AAC (mpeg4-generic) depacketizer',
    encoding: 'MPEG4-GENERIC',
    clockRate: 48_000,
    fmtp: { mode: 'AAC-hbr', config: '1188', sizelength: '13', indexlength: '3', indexdeltalength: '3', streamtype: '5' },
    // AU-headers-length of 16 bits (one header), 32, and absurd ones
    payloadHeads: [[0x00, 0x10], [0x00, 0x20], [0xff, 0xff], [0x00, 0x00]],
  },
  {
    name: 'AAC (MP4A-LATM) depacketizer',
    encoding: 'MP4A-LATM',
    clockRate: 48_000,
    fmtp: { cpresent: '0', config: '400023103fc0' },
    // PayloadLengthInfo of one byte, of 255+5 bytes, and an endless run of 255s
    payloadHeads: [[0x10], [0xff, 0x05], [0xff, 0xff]],
  },
];
