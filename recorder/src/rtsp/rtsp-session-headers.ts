// The session-level RTSP headers: Session, Transport (interleaved and UDP) and RTP-Info, parsed and formatted.
import { RtspProtocolError } from './rtsp-errors.js';

/** RFC 2326 §12.37: without a timeout parameter the server's session lasts 60 s. */
export const DEFAULT_SESSION_TIMEOUT_S = 60;

export interface SessionHeader {
  readonly id: string;
  readonly timeoutS: number;
}

/** "12345678;timeout=60" → id and timeout (seconds). */
export function parseSessionHeader(value: string): SessionHeader {
  const [idPart, ...params] = value.split(';');
  const id = (idPart ?? '').trim();
  if (id === '' || /[\s,]/.test(id)) throw new RtspProtocolError('an unparseable Session header');
  let timeoutS = DEFAULT_SESSION_TIMEOUT_S;
  for (const param of params) {
    const m = /^\s*timeout\s*=\s*(\d+)\s*$/i.exec(param);
    if (m !== null && Number(m[1]) > 0) timeoutS = Number(m[1]);
  }
  return { id, timeoutS };
}

export interface TransportHeader {
  readonly protocol: string;
  /** interleaved=a-b */
  readonly interleaved: readonly [number, number] | undefined;
  /** client_port=a-b */
  readonly clientPorts: readonly [number, number] | undefined;
  /** server_port=a-b */
  readonly serverPorts: readonly [number, number] | undefined;
  readonly source: string | undefined;
  readonly ssrc: number | undefined;
}

function range(value: string, max: number): readonly [number, number] | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(value.trim());
  if (m === null) return undefined;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a + 1 : Number(m[2]);
  return a <= max && b <= max ? [a, b] : undefined;
}

/** A SETUP response's Transport header (the first transport spec, which is the one the server chose). */
export function parseTransport(value: string): TransportHeader {
  const spec = value.split(',')[0] ?? '';
  const [protocol, ...params] = spec.split(';').map((p) => p.trim());
  const get = (name: string): string | undefined => {
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0 && p.slice(0, eq).toLowerCase() === name) return p.slice(eq + 1);
    }
    return undefined;
  };
  const interleaved = get('interleaved');
  const client = get('client_port');
  const server = get('server_port');
  const ssrcText = get('ssrc');
  const ssrc = ssrcText !== undefined && /^[0-9a-f]{1,8}$/i.test(ssrcText.trim()) ? parseInt(ssrcText, 16) : undefined;
  return {
    protocol: (protocol ?? '').toUpperCase(),
    interleaved: interleaved === undefined ? undefined : range(interleaved, 255),
    clientPorts: client === undefined ? undefined : range(client, 65535),
    serverPorts: server === undefined ? undefined : range(server, 65535),
    source: get('source'),
    ssrc,
  };
}

export interface RtpInfoEntry {
  readonly url: string;
  readonly seq: number | undefined;
  readonly rtptime: number | undefined;
}

/** "url=rtsp://h/cam/track1;seq=17;rtptime=9000,url=..." → entries. */
export function parseRtpInfo(value: string): RtpInfoEntry[] {
  const out: RtpInfoEntry[] = [];
  for (const entry of value.split(/,\s*(?=url=)/i)) {
    let url = '';
    let seq: number | undefined;
    let rtptime: number | undefined;
    for (const part of entry.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim().toLowerCase();
      const v = part.slice(eq + 1).trim();
      if (key === 'url') url = v;
      else if (key === 'seq' && /^\d+$/.test(v)) seq = Number(v) & 0xffff;
      else if (key === 'rtptime' && /^\d+$/.test(v)) rtptime = Number(v) >>> 0;
    }
    if (url !== '' || seq !== undefined || rtptime !== undefined) out.push({ url, seq, rtptime });
  }
  return out;
}

/** Which of `controlUrls` an RTP-Info url names: exactly, or by a path suffix (cameras shorten it). */
export function matchRtpInfoUrl(url: string, controlUrls: readonly string[]): number | undefined {
  const exact = controlUrls.indexOf(url);
  if (exact >= 0) return exact;
  if (url === '') return undefined;
  const suffix = controlUrls.findIndex((c) => {
    const path = c.replace(/^[a-z]+:\/\/[^/]*/i, '');
    return c.endsWith(url) || (path.length > 1 && url.endsWith(path));
  });
  return suffix >= 0 ? suffix : undefined;
}

/** Whether a SETUP answer means "not this transport" rather than some other failure. */
export function refusesTransport(status: number): boolean {
  // 461 Unsupported Transport is the standard answer; 400 (rtsp-server-perl), 406 and 451 are what servers say instead.
  return status === 461 || status === 400 || status === 406 || status === 451;
}
