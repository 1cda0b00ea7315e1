import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { isNonPublicAddress, privateTargetsAllowed, publicOnlyLookup } from './address-policy';

/** decisions.md §10: an attempt that has no answer after 10 s counts as a timeout (retryable). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Bytes of a receiver's answer read before the connection is closed: only the status matters. */
export const WEBHOOK_RESPONSE_MAX_BYTES = 64 * 1024;

export const ATTEMPT_OUTCOMES = ['success', 'retryable', 'permanent'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface SendResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Spec delivery rules 2-4: 2xx succeeds; 5xx, 408 and 429 are retried; every 3xx and other 4xx is final. */
export function classifyStatus(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return 'success';
  if (statusCode >= 500 || statusCode === 408 || statusCode === 429) return 'retryable';
  return 'permanent';
}

/** A request that got no answer (rule 3: network, DNS, connect and read failures) is retried, except a refused address. */
function describeError(
  error: NodeJS.ErrnoException,
  timeoutMs: number,
  timedOut: boolean,
): { outcome: AttemptOutcome; error: string } {
  if (timedOut) return { outcome: 'retryable', error: `timeout: no response within ${timeoutMs} ms` };
  switch (error.code) {
    case 'ENONPUBLIC':
      return { outcome: 'permanent', error: `address not allowed: ${error.message}` };
    case 'ECONNREFUSED':
      return { outcome: 'retryable', error: 'connection refused' };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return { outcome: 'retryable', error: `dns failure (${error.code})` };
    case 'ECONNRESET':
    case 'EPIPE':
      return { outcome: 'retryable', error: 'connection reset before a response' };
    default:
      return {
        outcome: 'retryable',
        error: error.code ? `${error.code}: ${error.message}` : error.message || 'request failed',
      };
  }
}

// Keep-alive pools: a busy destination reuses its connections instead of a TCP (and TLS) handshake per event.
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * POSTs `body` once. Never throws: every outcome is classified. Redirects are not followed
 * (node:http never follows them, and 3xx is a final answer per the spec). The response body is
 * drained and discarded, at most WEBHOOK_RESPONSE_MAX_BYTES of it: a longer one closes the
 * connection, so a receiver cannot hold a worker slot by streaming. The address connected to is the
 * one publicOnlyLookup checked (the check is the connect's own lookup: no rebinding in between).
 */
export function sendWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, durationMs: elapsed() });
    };

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish({ outcome: 'permanent', statusCode: null, error: 'invalid url' });
    }
    const isHttps = target.protocol === 'https:';
    if (!isHttps && target.protocol !== 'http:') {
      return finish({ outcome: 'permanent', statusCode: null, error: `unsupported protocol ${target.protocol}` });
    }
    // Literal addresses skip DNS, so the lookup guard never sees them.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (!privateTargetsAllowed() && isNonPublicAddress(literal)) {
      return finish({ outcome: 'permanent', statusCode: null, error: `address not allowed: ${literal} is not public` });
    }

    let timedOut = false;
    const request = (isHttps ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: isHttps ? httpsAgent : httpAgent,
        lookup: publicOnlyLookup,
      },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        finish({ outcome: classifyStatus(statusCode), statusCode, error: null });
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > WEBHOOK_RESPONSE_MAX_BYTES) response.destroy();
        });
        response.on('close', () => clearTimeout(timer));
        response.on('error', () => clearTimeout(timer));
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(new Error('timeout'));
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      finish({ statusCode: null, ...describeError(error, timeoutMs, timedOut && !settled) });
    });
    request.end(body);
  });
}
