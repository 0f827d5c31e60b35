import { maxHeaderSize, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

import type { HttpError } from '../http/error-mapping';
import { renderError } from '../http/error-rendering';

/** Node's parser errors a client can cause, as the service's error body (anything else: 400 BAD_REQUEST). */
const KNOWN: Record<string, HttpError> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: `the request's headers exceed ${maxHeaderSize} bytes (Node's maxHeaderSize)`,
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' },
};

/**
 * Requests Node's HTTP parser refuses (oversized headers, malformed request lines) never reach Express: Node answers
 * them itself with a bare status line. This answers them with the service's JSON error body instead. The path is
 * not known here, so the body is the LangGraph API's shape, which carries both REST v1's `error` and its `detail`.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } | null }) => {
    // as Node's own handler: nothing is written to a socket gone, or one already answering a (pipelined) request
    if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const error = KNOWN[err.code ?? ''] ?? { status: 400, code: 'BAD_REQUEST', message: 'the request is not valid HTTP' };
    const { status, headers, contentType, body } = renderError(error, 'langgraph');
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: ${contentType}\r\nX-Content-Type-Options: nosniff\r\n${lines.join('')}` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
