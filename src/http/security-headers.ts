import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** The security headers of every answer (docs/api.md "Security"): helmet's defaults. */
export const securityHeaders = helmet();

/**
 * The same headers as raw header lines, for the few answers written to the socket before Express
 * (src/server.ts: 431, malformed requests). Taken from helmet itself, so both stay the same set.
 */
export function securityHeaderLines(): string {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  } as unknown as ServerResponse;
  securityHeaders({} as IncomingMessage, response, () => undefined);
  return [...headers].map(([name, value]) => `${name}: ${value}\r\n`).join('');
}
