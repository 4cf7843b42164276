// Errors raised before any route runs — by Node's HTTP parser or by the router — answered with the API's error body.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { redactText } from '../util/redact.js';
import { codeForStatus, errorBody, ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js';

/** What Node's parser (llhttp) reported, in words a client can act on; the raw request is never echoed. */
function parserError(err: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'headers_too_large', message: 'the request line and headers are larger than the server accepts (16 KiB)' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'bad_request', message: 'the Content-Length header is not valid' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_INVALID_CHUNK_SIZE':
      return { code: 'bad_request', message: 'the Transfer-Encoding or chunked body is not valid' };
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return { code: 'bad_request', message: 'the request line is not valid HTTP/1.1 (method, path, version)' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { code: 'bad_request', message: 'a request header is not valid' };
    default:
      return { code: 'bad_request', message: `the request is not valid HTTP (${err.code ?? 'parse error'})` };
  }
}

/** The whole answer, written straight to the socket (no request object exists yet). */
export function rawErrorResponse(code: ErrorCode, message: string): string {
  const status = ERROR_CATALOGUE[code].status;
  const body = JSON.stringify(errorBody(code, message));
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    '',
    body,
  ].join('\r\n');
}

/** fastify's `clientErrorHandler`: the parser rejected the bytes on a connection (bad Content-Length, 431, bad request line). */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection or one already answered has nobody to tell.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { code, message } = parserError(err);
  this.log.debug({ err: err.code, status: ERROR_CATALOGUE[code].status }, 'HTTP parser rejected a request');
  if (socket.writable && socket.bytesWritten === 0) socket.end(rawErrorResponse(code, message), () => socket.destroy());
  else socket.destroy();
}

/** fastify's `frameworkErrors`: the router rejected the URL (an escape it cannot decode, a path segment too long). */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  // Fixed words for the known cases: fastify's own messages quote the path.
  let code: ErrorCode;
  let message: string;
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') [code, message] = ['uri_too_long', 'a path segment is longer than 100 characters'];
  else if (err.code === 'FST_ERR_BAD_URL') [code, message] = ['bad_request', 'the path is not a valid URL (a broken percent-escape)'];
  else {
    code = codeForStatus(err.statusCode ?? 400);
    message = code === 'internal_error' ? ERROR_CATALOGUE.internal_error.message : redactText(err.message);
  }
  void reply.status(ERROR_CATALOGUE[code].status).send(errorBody(code, message));
}
