// Property-based fuzz targets for every parser that reads what a camera sends: RTSP, SDP, RTP depacketizers, RTCP, MP4 boxes.
import fc from 'fast-check';
import { parseInitSegment } from '../../src/media/init-parser.js';
import { BoxFormatError } from '../../src/media/box-reader.js';
import { Fmp4StreamParser } from '../../src/media/fmp4-stream-parser.js';
import { createDepacketizer } from '../../src/rtp/depacketizer-factory.js';
import { parseRtcp } from '../../src/rtp/rtcp.js';
import { InterleavedReader } from '../../src/rtsp/interleaved-reader.js';
import { RtspProtocolError } from '../../src/rtsp/rtsp-errors.js';
import type { RtspMessage } from '../../src/rtsp/rtsp-message.js';
import { parseSdp } from '../../src/rtsp/sdp.js';
import { DEPACKETIZER_FUZZ_CASES, type DepacketizerFuzzCase } from './depacketizer-cases.js';

export interface FuzzTarget {
  name: string;
  /** A fast-check property over inputs a hostile or broken camera could send. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each target's property has its own argument tuple
  property(): fc.IProperty<any>;
}

/** Splits `bytes` at the given cut points (any boundary may cut a message or frame in two). */
function chunks(bytes: Uint8Array, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) out.push(Buffer.from(bytes.subarray(from, p)));
    from = Math.max(from, p);
  }
  return out;
}

const bytes = (max: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ maxLength: max });
const cuts = fc.array(fc.nat(), { maxLength: 12 });

/** An RTSP response as cameras write them, with a few ways of being wrong. */
const rtspResponse = fc.record({
  status: fc.integer({ min: 100, max: 999 }),
  headers: fc.array(fc.tuple(fc.constantFrom('CSeq', 'Session', 'Transport', 'Content-Base', 'WWW-Authenticate', 'RTP-Info', 'X-Junk'), fc.string({ maxLength: 60 })), { maxLength: 8 }),
  body: fc.string({ maxLength: 300 }),
  lying: fc.option(fc.nat({ max: 2_000_000_000 })),
});

function rtspText(r: { status: number; headers: Array<[string, string]>; body: string; lying: number | null }): string {
  const body = Buffer.from(r.body, 'utf8');
  const length = r.lying ?? body.length;
  const headers = r.headers.map(([n, v]) => `${n}: ${v.replace(/[\r\n]/g, ' ')}\r\n`).join('');
  return `RTSP/1.0 ${r.status} Reason\r\n${headers}Content-Length: ${length}\r\n\r\n${r.body}`;
}

function readerFor(messages: RtspMessage[], frames: number[]): InterleavedReader {
  return new InterleavedReader({
    frame: (channel, buffer, start, end) => {
      if (start < 0 || end > buffer.length || end < start) throw new Error(`a frame outside its buffer: [${start}, ${end}) of ${buffer.length}`);
      frames.push(channel, end - start);
    },
    message: (m) => messages.push(m),
  });
}

const rtsp: FuzzTarget = {
  name: 'RTSP response parser (interleaved framing)',
  property: () =>
    fc.property(
      fc.array(fc.oneof(bytes(200), rtspResponse.map((r) => Buffer.from(rtspText(r), 'utf8')), fc.tuple(fc.nat(255), bytes(300)).map(([ch, p]) => Buffer.concat([Buffer.from([0x24, ch, p.length >> 8, p.length & 0xff]), p]))), { maxLength: 6 }),
      cuts,
      (parts, at) => {
        const messages: RtspMessage[] = [];
        const frames: number[] = [];
        const reader = readerFor(messages, frames);
        try {
          for (const chunk of chunks(Buffer.concat(parts), at)) reader.push(chunk);
        } catch (err) {
          if (!(err instanceof RtspProtocolError)) throw err;
        }
        for (const m of messages) if (m.body.length > 64 * 1024) throw new Error(`a body of ${m.body.length} bytes was accepted`);
      },
    ),
};

const rtspRoundTrip: FuzzTarget = {
  name: 'RTSP response parser (valid answers cut anywhere)',
  property: () =>
    fc.property(fc.array(rtspResponse.map((r) => ({ ...r, lying: null })), { minLength: 1, maxLength: 4 }), cuts, (responses, at) => {
      const messages: RtspMessage[] = [];
      const reader = readerFor(messages, []);
      const text = responses.map((r) => rtspText(r)).join('');
      for (const chunk of chunks(Buffer.from(text, 'utf8'), at)) reader.push(chunk);
      if (messages.length !== responses.length) throw new Error(`${responses.length} answers, ${messages.length} parsed`);
      responses.forEach((r, i) => {
        const m = messages[i];
        if (m?.kind !== 'response' || m.status !== r.status || m.body.toString('utf8') !== r.body) throw new Error(`answer ${i} parsed wrong`);
      });
    }),
};

const sdpLine = fc.oneof(
  fc.constantFrom('v=0', 'o=- 0 0 IN IP4 127.0.0.1', 's=cam', 'c=IN IP4 0.0.0.0', 't=0 0', 'a=control:*', 'a=range:npt=0-', 'a=recvonly'),
  fc.tuple(fc.constantFrom('video', 'audio', 'application', ''), fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 })).map(([t, port, rest]) => `m=${t} ${port} RTP/AVP ${rest}`),
  fc.tuple(fc.nat(300), fc.constantFrom('H264', 'H265', 'MPEG4-GENERIC', 'PCMU', ''), fc.string({ maxLength: 10 })).map(([pt, enc, rate]) => `a=rtpmap:${pt} ${enc}/${rate}`),
  fc.tuple(fc.nat(300), fc.string({ maxLength: 80 })).map(([pt, params]) => `a=fmtp:${pt} ${params}`),
  fc.string({ maxLength: 40 }).map((c) => `a=control:${c}`),
  fc.string({ maxLength: 40 }),
);

const sdp: FuzzTarget = {
  name: 'SDP parser',
  property: () =>
    fc.property(fc.array(sdpLine, { maxLength: 25 }), fc.constantFrom('\r\n', '\n'), (lines, eol) => {
      try {
        const parsed = parseSdp(lines.join(eol), 'rtsp://127.0.0.1:554/cam');
        for (const m of parsed.media) {
          if (!Number.isFinite(m.port) || typeof m.controlUrl !== 'string') throw new Error('an SDP medium without a port or control URL');
        }
      } catch (err) {
        if (!(err instanceof RtspProtocolError)) throw err;
      }
    }),
};

const rtcpPacket = fc.record({ version: fc.constantFrom(2, 2, 2, 0, 3), padding: fc.boolean(), count: fc.nat(31), type: fc.constantFrom(200, 201, 202, 203, 204, 0, 255), words: fc.nat(20), body: bytes(100) }).map((p) => {
  const b = Buffer.alloc(4 + p.body.length);
  b[0] = (p.version << 6) | (p.padding ? 0x20 : 0) | p.count;
  b[1] = p.type;
  b.writeUInt16BE(p.words, 2);
  Buffer.from(p.body).copy(b, 4);
  return b;
});

const rtcp: FuzzTarget = {
  name: 'RTCP parser',
  property: () =>
    fc.property(fc.oneof(bytes(300), fc.array(rtcpPacket, { maxLength: 5 }).map((ps) => Buffer.concat(ps))), (packet) => {
      const s = parseRtcp(Buffer.from(packet));
      for (const sr of s.senderReports) if (!Number.isFinite(sr.ntpMs)) throw new Error('a sender report with no usable time');
    }),
};

/** RTP packets of one track: mostly in order, one SSRC, payloads that start like real ones or are random. */
function rtpStream(c: DepacketizerFuzzCase): fc.Arbitrary<Buffer[]> {
  const payload = fc.oneof(bytes(1400), fc.tuple(fc.constantFrom(...c.payloadHeads), bytes(1400)).map(([head, rest]) => Buffer.concat([Buffer.from(head), rest])));
  const packet = fc.record({ payload, marker: fc.boolean(), seqJump: fc.oneof(fc.constant(1), fc.constant(1), fc.constant(1), fc.integer({ min: -5, max: 40000 })), tsStep: fc.oneof(fc.constant(0), fc.constant(3600), fc.nat()), ssrc: fc.constantFrom(7, 7, 7, 9), raw: fc.option(bytes(40), { freq: 20 }) });
  return fc.array(packet, { maxLength: 60 }).map((ps) => {
    let seq = 100;
    let ts = 0;
    return ps.map((p) => {
      if (p.raw !== null) return Buffer.from(p.raw);
      seq = (seq + p.seqJump) & 0xffff;
      ts = (ts + p.tsStep) >>> 0;
      const h = Buffer.alloc(12);
      h[0] = 0x80;
      h[1] = (p.marker ? 0x80 : 0) | 96;
      h.writeUInt16BE(seq, 2);
      h.writeUInt32BE(ts, 4);
      h.writeUInt32BE(p.ssrc, 8);
      return Buffer.concat([h, p.payload]);
    });
  });
}

function depacketizerTarget(c: DepacketizerFuzzCase): FuzzTarget {
  return {
    name: c.name,
    property: () =>
      fc.property(rtpStream(c), (packets) => {
        let units = 0;
        let unitBytes = 0;
        const d = createDepacketizer(c.encoding, c.clockRate, c.fmtp, (unit) => {
          units++;
          if ('nalus' in unit) for (const n of unit.nalus) unitBytes += n.length;
          else unitBytes += unit.data.length;
        });
        // The shared read buffer of TCP ingest: packets are byte ranges of one buffer, reused at once.
        const shared = Buffer.alloc(2048);
        let fed = 0;
        for (const p of packets) {
          p.copy(shared, 0);
          d.push(shared, 1000 + fed, 0, p.length);
          shared.fill(0xee, 0, p.length);
          fed += p.length;
        }
        d.flush();
        if (unitBytes > fed) throw new Error(`${unitBytes} bytes of units out of ${fed} bytes in`);
        if (c.encoding !== 'MPEG4-GENERIC' && units > packets.length) throw new Error(`${units} pictures out of ${packets.length} packets`);
        d.receptionReport();
      }),
  };
}

const BOX_TYPES = ['ftyp', 'moov', 'mvhd', 'trak', 'tkhd', 'mdia', 'mdhd', 'hdlr', 'minf', 'stbl', 'stsd', 'avc1', 'avcC', 'mp4a', 'esds', 'mvex', 'trex', 'moof', 'mfhd', 'traf', 'tfhd', 'tfdt', 'trun', 'mdat', 'uuid', 'free'];

/** Boxes nested a few levels, with sizes that are right, wrong, 0 (to the end) or 1 (64-bit). */
const box: fc.Arbitrary<Buffer> = fc.letrec<{ box: Buffer }>((tie) => ({
  box: fc.record({ type: fc.constantFrom(...BOX_TYPES), size: fc.constantFrom('right', 'right', 'right', 'zero', 'large', 'lie'), lie: fc.nat(), body: fc.oneof({ depthSize: 'small' }, bytes(60), fc.array(tie('box'), { maxLength: 3 }).map((bs) => Buffer.concat(bs))) }).map((b) => {
    const body = Buffer.from(b.body);
    const large = b.size === 'large';
    const head = Buffer.alloc(large ? 16 : 8);
    head.write(b.type, 4, 'latin1');
    const total = head.length + body.length;
    if (large) {
      head.writeUInt32BE(1, 0);
      head.writeBigUInt64BE(BigInt(total), 8);
    } else head.writeUInt32BE(b.size === 'zero' ? 0 : b.size === 'lie' ? b.lie >>> 0 : total, 0);
    return Buffer.concat([head, body]);
  }),
})).box;

const mp4: FuzzTarget = {
  name: 'MP4 box reader (init segment, fragmented stream)',
  property: () =>
    fc.property(fc.oneof(bytes(400), fc.array(box, { maxLength: 4 }).map((bs) => Buffer.concat(bs))), cuts, (data, at) => {
      const buf = Buffer.from(data);
      try {
        parseInitSegment(buf);
      } catch (err) {
        if (!(err instanceof BoxFormatError)) throw err;
      }
      const parser = new Fmp4StreamParser({ onInit: () => undefined, onFragment: () => undefined, onError: () => undefined });
      for (const chunk of chunks(buf, at)) parser.push(chunk);
    }),
};

export const FUZZ_TARGETS: FuzzTarget[] = [rtsp, rtspRoundTrip, sdp, rtcp, ...DEPACKETIZER_FUZZ_CASES.map(depacketizerTarget), mp4];
