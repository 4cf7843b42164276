// HTTPS on the API's own port: each connection's first byte says TLS (decrypted, then handed to the HTTP server) or plain HTTP (answered 400 https_required).
import { createServer as createPlainServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { ServingCertificate } from '../tls/serving-certificate.js';
import { errorBody, ERROR_CATALOGUE } from './error-catalogue.js';

/** A TLS record starts with content type 22 (handshake); an HTTP request starts with a method's letter. */
const TLS_HANDSHAKE = 0x16;
/** A connection that sends nothing, or does not finish its handshake or plain request, is closed after this long. */
const HANDSHAKE_TIMEOUT_MS = 15_000;
/** Only a host[:port] from the Host header is echoed in the answer to plain HTTP; the path and query never are (tokens). */
const HOST_HEADER = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export interface TlsListener {
  /** Ends connections that carry no TLS (silent so far, or plain HTTP): nobody is served on them. */
  dropUnserved(): void;
  /** Ends every connection left; after the HTTP server's own close has had its chance. */
  destroyAll(): void;
}

/** The answer to a plain-HTTP request on the TLS port: a clear 400, never a redirect that would keep tokens travelling in clear. */
function answerPlainRequest(req: IncomingMessage, res: ServerResponse): void {
  const host = req.headers.host;
  const url = host !== undefined && HOST_HEADER.test(host) ? `https://${host}/` : undefined;
  const message = `${ERROR_CATALOGUE.https_required.message}: ${url === undefined ? 'use https://' : `use ${url}`} (a token sent over plain HTTP may have been seen by others)`;
  const body = JSON.stringify(errorBody('https_required', message, url === undefined ? undefined : { url }));
  res.writeHead(ERROR_CATALOGUE.https_required.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    connection: 'close',
  });
  res.end(body);
}

/**
 * Takes over `server`'s connections (call before it listens): the HTTP server keeps its requests, upgrades, timeouts
 * and close, on decrypted sockets. The certificate is swapped for new connections whenever `certificate` changes.
 */
export function serveTls(server: Server, certificate: ServingCertificate, log: Logger): TlsListener {
  const toHttp = server.listeners('connection') as Array<(socket: TLSSocket) => void>;
  server.removeAllListeners('connection');
  const tls = createTlsServer({ ...certificate.secureContextOptions(), ALPNProtocols: ['http/1.1'], handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
  tls.on('secureConnection', (socket: TLSSocket) => {
    for (const listener of toHttp) listener.call(server, socket);
  });
  // A client that offers only TLS 1.1, weak suites, or does not trust the certificate: its connection ends, nothing to answer.
  tls.on('tlsClientError', (err: Error, socket: TLSSocket) => {
    log.debug({ err: err.message, remote: socket.remoteAddress }, 'TLS handshake failed');
    socket.destroy();
  });
  certificate.onChange(() => tls.setSecureContext(certificate.secureContextOptions()));

  const plain = createPlainServer(answerPlainRequest);
  plain.on('clientError', (_err: Error, socket: Socket) => socket.destroy());

  const unserved = new Set<Socket>();
  const all = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    all.add(socket);
    unserved.add(socket);
    socket.once('close', () => {
      all.delete(socket);
      unserved.delete(socket);
    });
    socket.on('error', () => undefined);
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    socket.once('readable', () => {
      const first = socket.read(1) as Buffer | null;
      if (first === null) {
        socket.destroy();
        return;
      }
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) {
        // From here the TLS handshake timeout, then the HTTP server's own timeouts (headers, keep-alive) apply.
        socket.setTimeout(0);
        unserved.delete(socket);
        tls.emit('connection', socket);
      } else {
        log.debug({ remote: socket.remoteAddress }, 'plain HTTP on the HTTPS port: answered 400 https_required');
        plain.emit('connection', socket);
      }
    });
  });
  return {
    dropUnserved: () => {
      for (const socket of unserved) socket.destroy();
    },
    destroyAll: () => {
      for (const socket of all) socket.destroy();
    },
  };
}
