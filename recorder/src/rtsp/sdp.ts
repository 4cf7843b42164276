// SDP (RFC 8866) as cameras send it in DESCRIBE answers: sessions, media, rtpmap, fmtp, control URLs.
import { RtspProtocolError } from './rtsp-errors.js';

export interface SdpAttribute {
  readonly name: string;
  /** The text after the first ':', or '' for a flag attribute such as a=recvonly. */
  readonly value: string;
}

export interface SdpRtpMap {
  /** As written (e.g. 'H264', 'MPEG4-GENERIC'); compare case-insensitively. */
  readonly encodingName: string;
  readonly clockRate: number;
  readonly channels: number | undefined;
}

export type SdpDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface SdpMedia {
  /** Position among the m= lines, what RtspSession.setup() takes. */
  readonly index: number;
  /** 'video', 'audio', 'application' (or whatever the camera wrote). */
  readonly type: string;
  readonly port: number;
  readonly portCount: number | undefined;
  /** e.g. 'RTP/AVP'. */
  readonly proto: string;
  readonly payloadTypes: readonly number[];
  /** By payload type; static payload types (0 PCMU, 8 PCMA, 26 JPEG ...) are filled in when a=rtpmap is missing. */
  readonly rtpmap: ReadonlyMap<number, SdpRtpMap>;
  /** By payload type; keys lower-cased, values as written (sprop-parameter-sets keeps its '=' padding). */
  readonly fmtp: ReadonlyMap<number, Readonly<Record<string, string>>>;
  /** The a=control value as written. */
  readonly control: string | undefined;
  /** The control URL resolved against the base: what SETUP is sent to. */
  readonly controlUrl: string;
  readonly framerate: number | undefined;
  readonly direction: SdpDirection | undefined;
  readonly attributes: readonly SdpAttribute[];
}

export interface Sdp {
  readonly sessionName: string | undefined;
  /** Session-level a=control as written. */
  readonly control: string | undefined;
  /** The aggregate control URL (PLAY, TEARDOWN): session a=control resolved, or the base URL. */
  readonly controlUrl: string;
  /** Session-level a=range, if any. */
  readonly range: string | undefined;
  readonly direction: SdpDirection | undefined;
  readonly attributes: readonly SdpAttribute[];
  readonly media: readonly SdpMedia[];
}

const STATIC_PAYLOADS: ReadonlyMap<number, SdpRtpMap> = new Map([
  [0, { encodingName: 'PCMU', clockRate: 8000, channels: 1 }],
  [3, { encodingName: 'GSM', clockRate: 8000, channels: 1 }],
  [8, { encodingName: 'PCMA', clockRate: 8000, channels: 1 }],
  [9, { encodingName: 'G722', clockRate: 8000, channels: 1 }],
  [10, { encodingName: 'L16', clockRate: 44100, channels: 2 }],
  [11, { encodingName: 'L16', clockRate: 44100, channels: 1 }],
  [14, { encodingName: 'MPA', clockRate: 90000, channels: undefined }],
  [26, { encodingName: 'JPEG', clockRate: 90000, channels: undefined }],
  [32, { encodingName: 'MPV', clockRate: 90000, channels: undefined }],
  [33, { encodingName: 'MP2T', clockRate: 90000, channels: undefined }],
]);

const DIRECTIONS = new Set<string>(['sendrecv', 'sendonly', 'recvonly', 'inactive']);

/**
 * A control attribute resolved the way ffmpeg and GStreamer do: absolute URLs as they are, '*' is the base,
 * an absolute path replaces the base's path, anything else is appended to the base with one '/' between (cameras expect rtsp://h/cam/trackID=1 where
 * RFC 3986 resolution would drop the 'cam' segment when the base lacks a trailing slash).
 */
export function resolveControl(base: string, control: string | undefined): string {
  if (control === undefined || control === '' || control === '*') return base;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(control)) return control;
  if (control.startsWith('/')) {
    // An absolute path replaces the base's path.
    try {
      return new URL(control, base).toString();
    } catch {
      return base + control;
    }
  }
  return base.endsWith('/') ? base + control : `${base}/${control}`;
}

/** Splits 'a=fmtp' parameters ("k=v; k2=v2"); keys lower-cased, a value keeps any '=' after the first. */
export function parseFmtpParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(';')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) out[item.toLowerCase()] = '';
    else out[item.slice(0, eq).trim().toLowerCase()] = item.slice(eq + 1).trim();
  }
  return out;
}

interface MediaDraft {
  index: number;
  type: string;
  port: number;
  portCount: number | undefined;
  proto: string;
  payloadTypes: number[];
  attributes: SdpAttribute[];
}

function parseMediaLine(value: string, index: number): MediaDraft {
  const [type, portText, proto, ...formats] = value.trim().split(/\s+/);
  const portMatch = /^(\d+)(?:\/(\d+))?$/.exec(portText ?? '');
  if (type === undefined || portMatch === null || proto === undefined) throw new RtspProtocolError(`an unparseable SDP m= line: ${value}`);
  const payloadTypes = formats.map(Number).filter((pt) => Number.isInteger(pt) && pt >= 0 && pt <= 127);
  return {
    index, type, proto, payloadTypes, attributes: [],
    port: Number(portMatch[1]), portCount: portMatch[2] === undefined ? undefined : Number(portMatch[2]),
  };
}

function attribute(value: string): SdpAttribute {
  const colon = value.indexOf(':');
  return colon < 0 ? { name: value.trim(), value: '' } : { name: value.slice(0, colon).trim(), value: value.slice(colon + 1).trim() };
}

/** "96 H264/90000" → [96, map]; "97 mpeg4-generic/48000/2" carries channels. */
function parseRtpmap(value: string): [number, SdpRtpMap] | undefined {
  const m = /^(\d+)\s+([^/\s]+)\/(\d+)(?:\/(\d+))?/.exec(value);
  if (m === null) return undefined;
  return [Number(m[1]), { encodingName: m[2] ?? '', clockRate: Number(m[3]), channels: m[4] === undefined ? undefined : Number(m[4]) }];
}

function finishMedia(d: MediaDraft, base: string): SdpMedia {
  const rtpmap = new Map<number, SdpRtpMap>();
  const fmtp = new Map<number, Record<string, string>>();
  let control: string | undefined;
  let framerate: number | undefined;
  let direction: SdpDirection | undefined;
  for (const a of d.attributes) {
    const name = a.name.toLowerCase();
    if (name === 'rtpmap') {
      const entry = parseRtpmap(a.value);
      if (entry !== undefined) rtpmap.set(entry[0], entry[1]);
    } else if (name === 'fmtp') {
      const m = /^(\d+)\s*(.*)$/s.exec(a.value);
      if (m !== null) fmtp.set(Number(m[1]), parseFmtpParams(m[2] ?? ''));
    } else if (name === 'control') control = a.value;
    else if (name === 'framerate') {
      const rate = Number(a.value);
      if (Number.isFinite(rate) && rate > 0) framerate = rate;
    } else if (DIRECTIONS.has(name)) direction = name as SdpDirection;
  }
  for (const pt of d.payloadTypes) {
    const known = STATIC_PAYLOADS.get(pt);
    if (!rtpmap.has(pt) && known !== undefined) rtpmap.set(pt, known);
  }
  return {
    index: d.index, type: d.type, port: d.port, portCount: d.portCount, proto: d.proto, payloadTypes: d.payloadTypes,
    rtpmap, fmtp, control, controlUrl: resolveControl(base, control), framerate, direction, attributes: d.attributes,
  };
}

/**
 * Parses an SDP body. `base` is the URL relative controls resolve against (Content-Base, Content-Location or the
 * DESCRIBE URL, without credentials). Lenient about what cameras get wrong (LF-only lines, unknown lines).
 */
export function parseSdp(text: string, base: string): Sdp {
  const session: SdpAttribute[] = [];
  const drafts: MediaDraft[] = [];
  let sessionName: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.length < 2 || line[1] !== '=') continue;
    const type = line[0];
    const value = line.slice(2);
    const current = drafts[drafts.length - 1];
    if (type === 'm') drafts.push(parseMediaLine(value, drafts.length));
    else if (type === 'a') (current?.attributes ?? session).push(attribute(value));
    else if (type === 's' && current === undefined) sessionName = value;
  }
  if (drafts.length === 0) throw new RtspProtocolError('the SDP has no media (m=) lines');
  const find = (name: string): string | undefined => session.find((a) => a.name.toLowerCase() === name)?.value;
  const control = find('control');
  const direction = session.map((a) => a.name.toLowerCase()).find((n) => DIRECTIONS.has(n)) as SdpDirection | undefined;
  return {
    sessionName, control, controlUrl: resolveControl(base, control), range: find('range'), direction,
    attributes: session, media: drafts.map((d) => finishMedia(d, base)),
  };
}

/** The first video and the first audio media of an SDP: what a recorder usually wants. */
export function defaultMediaIndexes(sdp: Sdp): number[] {
  const out: number[] = [];
  const video = sdp.media.find((m) => m.type === 'video');
  const audio = sdp.media.find((m) => m.type === 'audio');
  if (video !== undefined) out.push(video.index);
  if (audio !== undefined) out.push(audio.index);
  return out;
}
