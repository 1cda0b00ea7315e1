import { Client } from 'pg';
import { createAccount, readAccount } from '../accounts';
import { paths } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { createPrisma } from '../db/prisma';
import {
  analyzeSeededTables,
  openSeedSession,
  seedChunk,
  seedSupportingRows,
  type SeedSizes,
  type SeedTable,
} from '../scale';
import { fail, parseCommandLine, refuse, runCommand } from './operator';

const usage = `Usage: npm run seed:scale -- [--customers N] [--invoices N] [--events N] [--deliveries N] [--usage-events N]
                       [--account acct_... | --accounts K] [--seed TEXT] [--until ISO-DATE] [--span-days D]
                       [--chunk N] [--json]
  Inserts rows with SQL for measuring at scale (docs/performance.md, "Data at scale"): N customers,
  N invoices (one line each; every paid one with its payment), N events and N webhook deliveries (one
  attempt each), N usage events of one meter over the last 90 days (one in ten the first customer's), in each of K new accounts (default 1, each with an API key, printed) or in --account.
  Creation times spread over --span-days (default 1095) before --until (default today 00:00 UTC); the same
  sizes, --seed and --until make the same data. Statistics are analyzed at the end. Seed an account once:
  the rows' ids and invoice numbers come from the account and the row's number, so a second run into the
  same --account stops at its first row (nothing of that statement written).
  Uses DATABASE_URL, or the embedded cluster under DATA_DIR. Exit codes: 0 done, 1 failed, 2 bad usage.`;

function count(name: string, value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number.\n${usage}`);
  return Number(value);
}

async function main(): Promise<number> {
  const { values } = parseCommandLine(usage, {
    customers: { type: 'string' },
    invoices: { type: 'string' },
    events: { type: 'string' },
    deliveries: { type: 'string' },
    'usage-events': { type: 'string' },
    account: { type: 'string' },
    accounts: { type: 'string' },
    seed: { type: 'string', default: 'scale' },
    until: { type: 'string' },
    'span-days': { type: 'string', default: '1095' },
    chunk: { type: 'string', default: '100000' },
    json: { type: 'boolean', default: false },
  });
  const sizes: SeedSizes = {
    customers: count('customers', values.customers),
    invoices: count('invoices', values.invoices),
    events: count('events', values.events),
    deliveries: count('deliveries', values.deliveries),
    usageEvents: count('usage-events', values['usage-events']),
  };
  if (sizes.invoices > 0 && sizes.customers === 0) fail(`--invoices needs --customers (their customers).\n${usage}`);
  if (sizes.usageEvents > 0 && sizes.customers === 0)
    fail(`--usage-events needs --customers (whose usage they are).\n${usage}`);
  if (sizes.deliveries > 0 && sizes.events === 0) fail(`--deliveries needs --events (what they deliver).\n${usage}`);
  const accounts = count('accounts', values.accounts ?? '1');
  if (accounts < 1) fail(`--accounts must be at least 1.\n${usage}`);
  if (values.account && values.accounts) fail(`--account and --accounts exclude each other.\n${usage}`);
  const chunk = Math.max(1, count('chunk', values.chunk));
  const spanSeconds = count('span-days', values['span-days']) * 86_400;
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  const until = values.until ? new Date(values.until) : today;
  if (Number.isNaN(until.getTime())) fail(`--until must be an ISO date.\n${usage}`);

  const database = await resolveDatabase();
  const prisma = createPrisma(database.url, 2);
  const client = new Client({ connectionString: database.url });
  const made: { account_id: string; api_key?: string }[] = [];
  const started = Date.now();
  try {
    await migrate(database.url, paths.migrations);
    await client.connect();
    for (let k = 0; k < accounts; k++) {
      let target: { account_id: string; name: string; api_key?: string };
      if (values.account) {
        const account = await readAccount(prisma, values.account);
        if (!account) refuse(`No account ${values.account}.`);
        target = { account_id: account.id, name: account.name };
      } else {
        const created = await createAccount(prisma, { name: `Scale ${values.seed} ${k + 1}`, role: 'developer' });
        target = { account_id: created.account_id, name: created.name, api_key: created.api_key };
      }
      await openSeedSession(client, {
        accountId: target.account_id,
        accountName: target.name,
        seed: values.seed,
        until,
        spanSeconds,
        sizes,
      });
      await seedSupportingRows(client, sizes);
      for (const table of ['customers', 'invoices', 'events', 'deliveries', 'usageEvents'] as SeedTable[]) {
        for (let first = 1; first <= sizes[table]; first += chunk) {
          const last = Math.min(sizes[table], first + chunk - 1);
          await seedChunk(client, table, first, last);
          if (!values.json) {
            const seconds = ((Date.now() - started) / 1000).toFixed(0);
            process.stderr.write(`  ${target.account_id} ${table} ${last}/${sizes[table]} (${seconds} s)\n`);
          }
        }
      }
      made.push({ account_id: target.account_id, ...(target.api_key ? { api_key: target.api_key } : {}) });
    }
    await analyzeSeededTables(client);
  } finally {
    await client.end().catch(() => undefined);
    await prisma.$disconnect();
    await database.stop();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const summary = { accounts: made, ...sizes, seed: values.seed, until: until.toISOString(), seconds };
  if (values.json) {
    console.log(JSON.stringify(summary));
  } else {
    for (const account of made) {
      console.log(
        `Account ${account.account_id}${account.api_key ? `, API key (shown once): ${account.api_key}` : ''}`,
      );
    }
    console.log(
      `Made in each: ${sizes.customers} customers, ${sizes.invoices} invoices (with lines and payments), ` +
        `${sizes.events} events, ${sizes.deliveries} webhook deliveries, ${sizes.usageEvents} usage events; seed ${values.seed}, until ` +
        `${until.toISOString()}; ${seconds} s, statistics analyzed.`,
    );
  }
  return 0;
}

runCommand(main);
