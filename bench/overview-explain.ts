import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'pg';
import { paths } from '../src/config';
import { createAccount } from '../src/accounts/account.service';
import { createPrisma } from '../src/db/prisma';
import { migrate } from '../src/db/migrator';
import { startEmbeddedPostgres } from '../src/runtime/embedded-postgres';
import { getOverview } from '../src/reports/overview.service';
import { OVERVIEW_STATEMENTS, utcDate } from '../src/reports/overview.records';
import { seed } from './dashboard';

/**
 * The home screen's figures on a large account, measured alone (docs/performance.md, "The home's
 * figures"): a cluster of its own under OVERVIEW_DATA_DIR (kept, so a second run skips the seed of
 * bench/dashboard.ts: 100,000 customers, 300,000 invoices, 100,000 charges, 1,000,000 events), EXPLAIN
 * ANALYZE of each statement, then getOverview called by 2 callers at once for OVERVIEW_SECONDS (5),
 * after a warm-up: p50 and p99 in ms. `npx tsx bench/overview-explain.ts [--explain-only]`.
 */
const DATA_DIR = process.env.OVERVIEW_DATA_DIR ?? path.join(paths.data, 'overview-bench');
const SECONDS = Number(process.env.OVERVIEW_SECONDS ?? 5);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  fs.mkdirSync(DATA_DIR, { recursive: true, mode: 0o777 });
  fs.chmodSync(DATA_DIR, 0o777);
  const database = await startEmbeddedPostgres({
    dataDir: path.join(DATA_DIR, 'pg'),
    port: 54399,
    database: 'overview',
  });
  try {
    await migrate(database.url, paths.migrations);
    const prisma = createPrisma(database.url, 4);
    let account = await prisma.account.findFirst({ where: { name: 'Large merchant' } });
    if (!account) {
      const created = await createAccount(prisma, { name: 'Large merchant', role: 'developer', paymentPlans: true });
      console.log(`seeded in ${(await seed(database.url, created.account_id)).toFixed(0)} s`);
      account = await prisma.account.findFirstOrThrow({ where: { id: created.account_id } });
    }
    const accountId = account.id;

    const pool = new Pool({ connectionString: database.url, max: 1 });
    // What autovacuum does soon after the seed's inserts: the visibility map lets an index-only scan skip the rows.
    await pool.query('VACUUM (ANALYZE) invoices, transactions');
    const now = new Date();
    const dayMs = 86_400_000;
    const start = new Date(Math.floor(now.getTime() / dayMs) * dayMs - 29 * dayMs);
    const end = new Date(start.getTime() + 30 * dayMs);
    const params: Record<string, unknown[]> = {
      RECURRING: [accountId],
      DAILY_LEDGER: [accountId, utcDate(start), utcDate(end)],
      OPEN_INVOICES: [accountId, now],
      PAST_DUE_PLANS: [accountId],
    };
    /** The plan of each statement's fifth run (the first ones warm the cache), and the median of the five. */
    const explainAll = async (print: boolean) => {
      const medians: Record<string, number> = {};
      for (const [name, statement] of Object.entries(OVERVIEW_STATEMENTS)) {
        const times: number[] = [];
        let lines: string[] = [];
        for (let run = 0; run < 5; run++) {
          const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, params[name]);
          lines = plan.rows.map((row: Record<string, string>) => String(row['QUERY PLAN']));
          times.push(Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1]));
        }
        medians[name] = times.sort((x, y) => x - y)[2]!;
        if (print) console.log(`\n${name}\n${lines.join('\n')}`);
      }
      return medians;
    };
    console.log('with the indexes, ms (median of 5):', await explainAll(true));
    // The same without the home's index of open invoices (dropped in a transaction rolled back): what it saves.
    await pool.query('BEGIN');
    await pool.query('DROP INDEX invoices_account_id_open_figures_idx');
    console.log('without them, ms (median of 5):', await explainAll(false));
    await pool.query('ROLLBACK');
    await pool.end();
    if (process.argv.includes('--explain-only')) return;

    for (let i = 0; i < 20; i++) await getOverview(prisma, accountId);
    const times: number[] = [];
    const until = Date.now() + SECONDS * 1000;
    const caller = async () => {
      while (Date.now() < until) {
        const began = performance.now();
        await getOverview(prisma, accountId);
        times.push(performance.now() - began);
      }
    };
    await Promise.all([caller(), caller()]);
    times.sort((a, b) => a - b);
    console.log(
      `\ngetOverview, 2 callers, ${SECONDS} s: ${times.length} calls, p50 ${percentile(times, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(times, 99).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
    await prisma.$disconnect();
  } finally {
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
