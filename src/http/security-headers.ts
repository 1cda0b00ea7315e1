import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** helmet's defaults (docs/api.md "Security"), run once against a recording response to learn the headers they set. */
function helmetHeaders(): [string, string][] {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  } as unknown as ServerResponse;
  helmet()({} as IncomingMessage, response, () => undefined);
  return [...headers];
}

const SECURITY_HEADERS = helmetHeaders();

/**
 * The security headers of every answer: helmet's defaults, which are the same for every request, set from the
 * list helmet gave at start rather than by its dozen middlewares on each request (docs/performance.md, "Reads by
 * resource"). A page with its own policy (the hosted pages, the dashboard) replaces a header after this one.
 */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  next();
}

/**
 * The same headers as raw header lines, for the few answers written to the socket before Express
 * (src/server.ts: 431, malformed requests).
 */
export function securityHeaderLines(): string {
  return SECURITY_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('');
}
