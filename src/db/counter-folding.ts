import { logger as defaultLogger } from '../http/logger';
import type { Db } from './prisma';
import { queryRows, type Statement } from './sql';

/**
 * The list counters (invoice_counts, balance_sums, webhook_delivery_counts, customer_counts) and the
 * dashboard's (revenue_days, event_counts) are appended to by triggers, a row per key and statement, so writers never
 * wait on each other for them; readers sum a key's rows. This folds each key's rows into one so that the
 * sums stay a few rows long (docs/decisions.md §23, §33, §34, §36): the functions in one statement, under the
 * advisory lock the first takes and the others take again.
 */
const FOLD_COUNTERS: Statement = {
  name: 'fold_counters',
  text: 'SELECT (fold_counters($1) + fold_dashboard_counters($1) + fold_customer_counts($1))::text AS removed',
};

/** Keys folded per table and call: one call stays a short transaction however far behind the folding is. */
const FOLD_BATCH = 1_000;

/** Folds one batch of keys per counter table; answers how many delta rows it merged away. */
export async function foldCounters(db: Db, batch = FOLD_BATCH): Promise<number> {
  const [row] = await queryRows<{ removed: string }>(db, FOLD_COUNTERS, [batch]);
  return Number(row?.removed ?? 0);
}

export interface CounterFolding {
  stop(): Promise<void>;
}

/**
 * Folds the counters every `intervalMs` (1 s), batch after batch while there is work. Run by each worker
 * process; the function's advisory lock lets one fold at a time, the others return at once.
 */
export function startCounterFolding(options: {
  prisma: Db;
  intervalMs?: number;
  logger?: Pick<typeof defaultLogger, 'error'>;
}): CounterFolding {
  const log = options.logger ?? defaultLogger;
  let stopped = false;
  let pass: Promise<unknown> | null = null;

  async function foldWhileBehind(): Promise<void> {
    // A bounded number of batches per tick, so a stop is never kept waiting long.
    for (let round = 0; round < 20 && !stopped; round += 1) {
      if ((await foldCounters(options.prisma)) === 0) return;
    }
  }

  const poll = setInterval(() => {
    if (stopped || pass) return;
    pass = foldWhileBehind()
      .catch((error: unknown) => log.error({ err: error }, 'counter folding failed; the next tick retries'))
      .finally(() => (pass = null));
  }, options.intervalMs ?? 1_000);
  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      await pass;
    },
  };
}
