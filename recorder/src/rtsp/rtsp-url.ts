// Camera URLs: parsing rtsp:// and rtsps://, default ports, splitting off the credentials, and redaction.
import { redactUrl } from '../util/redact.js';
import { RtspError } from './rtsp-errors.js';

export const DEFAULT_RTSP_PORT = 554;
export const DEFAULT_RTSPS_PORT = 322;

export interface RtspCredentials {
  readonly user: string;
  readonly password: string;
}

export interface RtspUrl {
  readonly tls: boolean;
  /** Host name or IP address to connect to (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** The URL as sent on the wire: no userinfo, no fragment. */
  readonly requestUrl: string;
  /** Safe for logs and error messages. */
  readonly redacted: string;
  readonly credentials: RtspCredentials | undefined;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    // A lone '%' in a password is more likely literal than an encoding mistake worth refusing over.
    return part;
  }
}

/** Parses a camera URL; throws an RtspError naming only the redacted URL. */
export function parseRtspUrl(text: string): RtspUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RtspError(`not a valid URL: ${redactUrl(text)}`);
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme !== 'rtsp:' && scheme !== 'rtsps:') throw new RtspError(`not an rtsp:// or rtsps:// URL: ${redactUrl(text)}`);
  if (url.hostname === '') throw new RtspError(`the URL has no host: ${redactUrl(text)}`);
  const tls = scheme === 'rtsps:';
  const port = url.port === '' ? (tls ? DEFAULT_RTSPS_PORT : DEFAULT_RTSP_PORT) : Number(url.port);
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  const credentials = url.username === '' && url.password === '' ? undefined : { user: decode(url.username), password: decode(url.password) };
  // url.host keeps an explicit port as written (rtsp is not a "special" scheme, so nothing is normalised away).
  const requestUrl = `${scheme}//${url.host}${url.pathname}${url.search}`;
  return { tls, host, port, requestUrl, redacted: redactUrl(requestUrl), credentials };
}

/**
 * May a redirect from `from` to `to` keep the credentials? Only to the same host (another port of the same device
 * is fine), and never from rtsps:// down to plain rtsp://, where Basic would travel in clear text.
 */
export function keepsCredentials(from: RtspUrl, to: RtspUrl): boolean {
  return from.host.toLowerCase() === to.host.toLowerCase() && (to.tls || !from.tls);
}

/** `target` resolved against `base` (absolute Location headers and relative ones both occur). */
export function resolveLocation(base: RtspUrl, location: string, credentials: RtspCredentials | undefined): RtspUrl {
  let resolved: string;
  try {
    resolved = new URL(location, base.requestUrl).toString();
  } catch {
    throw new RtspError(`the camera redirected to an invalid URL: ${redactUrl(location)}`);
  }
  const target = parseRtspUrl(resolved);
  if (target.credentials !== undefined) return target;
  return { ...target, credentials: keepsCredentials(base, target) ? credentials : undefined };
}

/** Redacts a URI or free text that may contain a URL with userinfo. */
export function redact(text: string): string {
  return redactUrl(text);
}
