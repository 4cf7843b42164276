// Whether a camera accepts TCP connections at all: a cheap probe, so a camera that is down is retried the moment it is back.
import { connect } from 'node:net';
import { parseRtspUrl } from '../rtsp/rtsp-url.js';

/** Resolves true once a TCP connection to host:port opens (it is closed at once), false on an error or after `timeoutMs`. */
export function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The probe of an RTSP camera's host and port, or undefined when `source` is not a usable rtsp(s):// URL. */
export function rtspProbe(source: string, timeoutMs = 1_000): (() => Promise<boolean>) | undefined {
  try {
    const url = parseRtspUrl(source);
    return () => canConnect(url.host, url.port, timeoutMs);
  } catch {
    return undefined;
  }
}
