import type { Request, RequestHandler, Response } from 'express';
import compression from 'compression';

/**
 * An answer that fits in TCP's initial congestion window (10 segments of 1,460 bytes) reaches the client
 * in one round trip compressed or not: compressing it costs CPU on every request and saves the client no
 * time. A CPU profile of the API under the bench's creations gave compression about 1.5 ms a request
 * (docs/performance.md, "Fourteenth round").
 */
export const INITIAL_WINDOW_BYTES = 10 * 1460;

/** JSON answers from the initial window up; pages, scripts and styles (compression's own types) from 1 KB. */
function worthCompressing(req: Request, res: Response): boolean {
  if (!compression.filter(req, res)) return false;
  const type = String(res.getHeader('Content-Type') ?? '');
  if (!type.startsWith('application/json')) return true;
  const length = Number(res.getHeader('Content-Length'));
  return !Number.isFinite(length) || length >= INITIAL_WINDOW_BYTES;
}

/** What the API compresses, for a client whose Accept-Encoding takes it (docs/decisions.md §19). */
export const compressAnswers = compression({ filter: worthCompressing });

/**
 * compressAnswers for every request but those `atSend` picks, whose answer is given to compression only when it is
 * sent and could be compressed (`sendCompressed`): compression wraps the response of each request it enters (its
 * `write`, `end`, `on` and `writeHead`), some 4% of a read's CPU though a short JSON answer is never compressed
 * (docs/performance.md, "Reads, third pass").
 */
export function compressAnswersUnless(atSend: (req: Request) => boolean): RequestHandler {
  return (req, res, next) => {
    if (!atSend(req)) {
      compressAnswers(req, res, next);
      return;
    }
    res.locals.compressAtSend = true;
    next();
  };
}

/**
 * Sends an answer through compressAnswers when its request was let past it (`compressAnswersUnless`), as it would
 * have gone through it at the request's start; otherwise sends it. `send` writes the whole answer.
 */
export function sendCompressed(req: Request, res: Response, send: () => void): void {
  if (res.locals.compressAtSend !== true || res.headersSent) {
    send();
    return;
  }
  res.locals.compressAtSend = false;
  compressAnswers(req, res, send);
}
