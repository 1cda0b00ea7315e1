import type { Outcome } from './feedback';

/**
 * What an action said before it opened another page (a subscription created on the customer's page opens the
 * subscription's): the page at `path` shows it once, when it opens.
 */
const waiting = new Map<string, Outcome>();

export function flashOn(path: string, outcome: Outcome): void {
  waiting.set(path, outcome);
}

/** The outcome waiting for `path`, taken: a later visit shows nothing. */
export function takeFlash(path: string): Outcome | undefined {
  const outcome = waiting.get(path);
  waiting.delete(path);
  return outcome;
}
