import { STATUS_CODES } from 'node:http';
import type { VestaErrorCode } from '@vesta/core';
import { statusOf } from '@vesta/core/kit';

/**
 * A whole HTTP/1.1 error answer as raw text, `{"error":{"code","message"}}` with the code's
 * status, for a socket that has no response object to write through (bytes the parser refused,
 * a CONNECT, a connection refused at the cap). It closes the connection.
 */
export function rawErrorResponse(
  code: VestaErrorCode,
  message: string,
  extraHeaders: readonly string[] = [],
): string {
  const status = statusOf(code);
  const body = JSON.stringify({ error: { code, message } });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n' +
    extraHeaders.map((h) => `${h}\r\n`).join('') +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
