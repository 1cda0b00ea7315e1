import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { AppOptions } from './app';
import { createApp } from './app';
import { ApiError } from './http/errors';
import { securityHeaderLines } from './http/security-headers';

/**
 * Request line plus headers may take 64 KB (Node's default is 16 KB): a `search` of 2000 characters
 * percent-encodes to up to 18 KB, and it is valid.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Requests Node's HTTP parser refuses before Express sees them (headers too large, malformed request
 * line or header) still get the JSON error body and the security headers every other error has, then
 * the connection closes.
 */
const SECURITY_HEADER_LINES = securityHeaderLines();

function answerClientError(error: NodeJS.ErrnoException & { bytesParsed?: number }, socket: Duplex): void {
  // A client that went away or never finished its request gets no answer.
  if (error.code === 'ECONNRESET' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new ApiError(
          'invalid_request_error',
          'headers_too_large',
          `The request line and headers are larger than ${MAX_HEADER_BYTES / 1024} KB.`,
          undefined,
          431,
        )
      : new ApiError('invalid_request_error', 'malformed_request', 'The request is not well-formed HTTP.');
  const body = JSON.stringify(apiError.toBody());
  socket.end(
    `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status]}\r\n` +
      SECURITY_HEADER_LINES +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** The API's HTTP server: what production (`listen`) and the tests serve the app with. */
export function createServer(handler: http.RequestListener): http.Server {
  const server = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  return server;
}

export async function listen(deps: AppOptions, port: number): Promise<http.Server> {
  const server = createServer(createApp(deps));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, resolve);
  });
  return server;
}

/**
 * A graceful stop of the API's server (docs/operations.md, "Stopping"): it stops accepting connections,
 * answers every request in flight, and closes each connection once it has no request in flight (a
 * keep-alive connection would otherwise hold the stop for its 65 s timeout); a request that still comes on
 * an open connection is answered with `Connection: close`. Resolves when every connection has closed.
 */
export function closeGracefully(server: http.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.on('request', (_request: http.IncomingMessage, response: http.ServerResponse) => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  });
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  return closed.finally(() => clearInterval(idle));
}
