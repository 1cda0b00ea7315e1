// The `scale` section of `npm run bench` (docs/performance.md, "Data at scale"): one account seeded with
// `npm run seed:scale`'s statements, then every list, search and GET /balance of it timed one request at a
// time (p50 and p99), each beside its goal (p99 <= 25 ms). Sizes: BENCH_SCALE_CUSTOMERS (200000),
// BENCH_SCALE_INVOICES (200000), BENCH_SCALE_EVENTS (50000), BENCH_SCALE_DELIVERIES (100000); requests
// per figure: BENCH_SCALE_RUNS (100). The renewal storm (bench/storm.ts) joins its figures on the server engine (run.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { Connection } from '@temporalio/client';
import { createAccount } from '../src/accounts/account.service';
import { createApp } from '../src/app';
import { createPrisma } from '../src/db/prisma';
import { analyzeSeededTables, openSeedSession, seedChunk, seedSupportingRows } from '../src/scale/seed.records';
import { temporalClient } from '../src/temporal/client';
import type { BenchContext, Figures } from './support';

export const LIST_GOAL_MS = 25;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface ListTimes {
  results: { kind: string; name: string; p50: number; p99: number }[];
  list_p99_ms_max: number;
  search_p99_ms_max: number;
  deep_page_p99_ms_max: number;
}

/** The API in this process on an ephemeral port (lists never reach Temporal: a connection never used). */
export async function startListApi(databaseUrl: string): Promise<{ baseUrl: string; close(): void }> {
  const app = createApp({
    prisma: createPrisma(databaseUrl, 5),
    temporal: temporalClient(Connection.lazy({ address: '127.0.0.1:1' })),
    rateLimit: { perSecond: 100_000, burst: 100_000, processes: 1 },
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Times each list request of the account `key` opens, `runs` times after 10 unmeasured, one at a time. */
export async function measureLists(
  base: string,
  key: string,
  runs: number,
  print: (line: string) => void,
): Promise<ListTimes> {
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { 'cc-api-key': key } });
    const body = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };

  const [customer] = await get('/customers?take=1&sortingField=email&order=ASC');
  const invoices = await get('/invoices?take=100');
  const invoice = invoices.data.find((item: any) => item.subscription) ?? invoices.data[0];
  const numbered = invoices.data.find((item: any) => item.number);
  const total = invoices.meta.itemsTotal as number;
  const deepPage = Math.floor(total / 50 / 2);
  const deep = await get(`/invoices?take=50&page=${deepPage}`);
  // Half way through the customers (as many as the invoices unless BENCH_SCALE_CUSTOMERS says fewer): the
  // list answers no count, so the page is halved until it has customers.
  let customersPage = Math.max(1, Math.floor(total / 40));
  let deepCustomers = await get(`/customers?take=20&page=${customersPage}`);
  while (deepCustomers.length === 0 && customersPage > 1) {
    customersPage = Math.floor(customersPage / 2);
    deepCustomers = await get(`/customers?take=20&page=${customersPage}`);
  }
  const lastName = String(customer.name).split(' ').pop()!.slice(0, 5);
  const logs = await get('/webhook/logs?take=1');
  const now = Math.floor(Date.now() / 1000);

  const requests: [string, string, string][] = [];
  for (const sort of ['created', 'name', 'email'])
    for (const order of ['DESC', 'ASC'])
      requests.push(['list', `customers ${sort} ${order}`, `/customers?sortingField=${sort}&order=${order}`]);
  requests.push(
    ['list', 'customers search=Ada (list)', '/customers?search=Ada'],
    ['deep', `customers page=${customersPage}&take=20 (offset)`, `/customers?take=20&page=${customersPage}`],
    [
      'deep',
      'customers starting_after (that position)',
      `/customers?take=20&starting_after=${deepCustomers.at(-1).id}`,
    ],
    ['search', 'search part of a name (Ada)', '/customers/search?search=Ada'],
    ['search', `search part of a name (${lastName})`, `/customers/search?search=${encodeURIComponent(lastName)}`],
    [
      'search',
      'search exact email, upper case',
      `/customers/search?search=${encodeURIComponent(String(customer.email).toUpperCase())}`,
    ],
    ['search', 'search by id', `/customers/search?search=${customer.id}`],
    // The dashboard's search box (GET /search): text goes to the customers' search, ids and numbers to their indexes.
    ['search', 'search box: part of a name (Ada)', '/search?query=Ada'],
    ['search', 'search box: a customer id', `/search?query=${customer.id}`],
    ['search', 'search box: an invoice id', `/search?query=${invoice.id}`],
    ...(numbered
      ? [
          [
            'search',
            'search box: an invoice number, short',
            `/search?query=inv${Number(numbered.number.slice(4))}`,
          ] as [string, string, string],
        ]
      : []),
    ['list', 'invoices', '/invoices'],
    ...['draft', 'open', 'paid', 'void'].map((status): [string, string, string] => [
      'list',
      `invoices status=${status}`,
      `/invoices?status=${status}`,
    ]),
    ['list', 'invoices customer=', `/invoices?customer=${invoice.customer}`],
    ['list', 'invoices subscription=', `/invoices?subscription=${invoice.subscription}`],
    ['list', 'invoices created_gte (30 days)', `/invoices?created_gte=${now - 30 * 86_400 - 1234}`],
    [
      'list',
      'invoices created range and status=paid',
      `/invoices?status=paid&created_gt=${now - 400 * 86_400 + 77}&created_lte=${now - 100 * 86_400 - 999}`,
    ],
    ['deep', `invoices page=${deepPage}&take=50`, `/invoices?take=50&page=${deepPage}`],
    ['deep', 'invoices starting_after (that position)', `/invoices?take=50&starting_after=${deep.data.at(-1).id}`],
    ['list', 'balance', '/balance'],
    ['list', 'webhook logs', '/webhook/logs'],
    ['list', 'webhook logs status=failure', '/webhook/logs?status=failure'],
    ['list', 'webhook logs event_type=invoice.paid', '/webhook/logs?event_type=invoice.paid'],
    ...(logs.data[0]
      ? [
          ['list', 'webhook logs destination=', `/webhook/logs?destination=${logs.data[0].destination}`] as [
            string,
            string,
            string,
          ],
        ]
      : []),
  );

  const results: { kind: string; name: string; p50: number; p99: number }[] = [];
  for (const [kind, name, path] of requests) {
    for (let i = 0; i < 10; i++) await get(path);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await get(path);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const result = { kind, name, p50: +percentile(times, 50).toFixed(1), p99: +percentile(times, 99).toFixed(1) };
    results.push(result);
    const verdict = name.includes('(offset)') ? 'no goal' : result.p99 <= LIST_GOAL_MS ? 'ok' : 'over';
    print(
      `${name.padEnd(52)} p50 ${String(result.p50).padStart(7)} ms  p99 ${String(result.p99).padStart(7)} ms` +
        `  (goal p99 <= ${LIST_GOAL_MS} ms: ${verdict})`,
    );
  }
  const max = (kind: string) =>
    Math.max(...results.filter((r) => r.kind === kind && !r.name.includes('(offset)')).map((r) => r.p99));
  return { results, list_p99_ms_max: max('list'), search_p99_ms_max: max('search'), deep_page_p99_ms_max: max('deep') };
}

const size = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export async function benchScale(ctx: BenchContext): Promise<Figures> {
  const sizes = {
    customers: size('BENCH_SCALE_CUSTOMERS', 200_000),
    invoices: size('BENCH_SCALE_INVOICES', 200_000),
    events: size('BENCH_SCALE_EVENTS', 50_000),
    deliveries: size('BENCH_SCALE_DELIVERIES', 100_000),
    usageEvents: 0, // the usage section seeds its own (bench/usage.ts)
  };
  const account = await createAccount(ctx.prisma, { name: 'Bench scale', role: 'developer' });
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    const until = new Date();
    until.setUTCHours(0, 0, 0, 0);
    await openSeedSession(client, {
      accountId: account.account_id,
      accountName: account.name,
      seed: 'bench',
      until,
      spanSeconds: 1095 * 86_400,
      sizes,
    });
    await seedSupportingRows(client, sizes);
    for (const table of ['customers', 'invoices', 'events', 'deliveries'] as const)
      for (let first = 1; first <= sizes[table]; first += 100_000)
        await seedChunk(client, table, first, Math.min(sizes[table], first + 99_999));
    await client.query('VACUUM');
    await analyzeSeededTables(client);
  } finally {
    await client.end();
  }
  console.log(
    `scale: one account of ${sizes.customers} customers, ${sizes.invoices} invoices, ${sizes.events} events, ` +
      `${sizes.deliveries} deliveries (seeded in ${Math.round((Date.now() - started) / 1000)} s); renewal storm not measured here`,
  );
  const api = await startListApi(ctx.databaseUrl);
  try {
    const times = await measureLists(api.baseUrl, account.api_key, size('BENCH_SCALE_RUNS', 100), (line) =>
      console.log(line),
    );
    console.log(
      `scale: list p99 max ${times.list_p99_ms_max} ms, search p99 max ${times.search_p99_ms_max} ms, ` +
        `deep page p99 max ${times.deep_page_p99_ms_max} ms (goal <= ${LIST_GOAL_MS} ms each)`,
    );
    return {
      'scale.list_p99_ms_max': times.list_p99_ms_max,
      'scale.search_p99_ms_max': times.search_p99_ms_max,
      'scale.deep_page_p99_ms_max': times.deep_page_p99_ms_max,
    };
  } finally {
    api.close();
  }
}
