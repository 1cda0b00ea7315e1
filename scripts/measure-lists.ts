// Times the list, search and balance requests of one account one after another (no concurrency, so it
// can run beside other work on a small machine): docs/performance.md, "Data at scale".
// Usage: DATABASE_URL=... tsx scripts/measure-lists.ts --key sk_test_... [--runs 200] [--json]
// The account is one `npm run seed:scale` made; its ids are found through the API itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { createApp } from '../src/app';
import { createPrisma } from '../src/db/prisma';
import { temporalClient } from '../src/temporal/client';

const { values } = parseArgs({
  options: {
    key: { type: 'string' },
    runs: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
  },
});
if (!values.key || !process.env.DATABASE_URL) throw new Error('DATABASE_URL and --key are required');
const runs = Number(values.runs);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main(): Promise<void> {
  // Lists never reach Temporal: a lazy connection that is never used.
  const app = createApp({
    prisma: createPrisma(process.env.DATABASE_URL!, 5),
    temporal: temporalClient(Connection.lazy({ address: '127.0.0.1:1' })),
    rateLimit: { perSecond: 100_000, burst: 100_000, processes: 1 },
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { 'cc-api-key': values.key! } });
    const body = (await response.json()) as any;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };

  const [customer] = await get('/customers?take=1&sortingField=email&order=ASC');
  const invoices = await get('/invoices?take=100');
  const invoice = invoices.data.find((item: any) => item.subscription) ?? invoices.data[0];
  const total = invoices.meta.itemsTotal as number;
  const deepPage = Math.floor(total / 50 / 2);
  const deep = await get(`/invoices?take=50&page=${deepPage}`);
  const deepCustomers = await get(`/customers?take=20&page=${Math.floor(total / 40)}`);
  const lastName = String(customer.name).split(' ').pop()!.slice(0, 5);
  const logs = await get('/webhook/logs?take=1');
  const now = Math.floor(Date.now() / 1000);

  const requests: [string, string, string][] = [];
  for (const sort of ['created', 'name', 'email'])
    for (const order of ['DESC', 'ASC'])
      requests.push(['list', `customers ${sort} ${order}`, `/customers?sortingField=${sort}&order=${order}`]);
  requests.push(
    ['list', 'customers search=Ada (list)', '/customers?search=Ada'],
    [
      'deep',
      `customers page=${Math.floor(total / 40)}&take=20 (offset)`,
      `/customers?take=20&page=${Math.floor(total / 40)}`,
    ],
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
    if (!values.json)
      console.log(
        `${name.padEnd(52)} p50 ${String(result.p50).padStart(7)} ms  p99 ${String(result.p99).padStart(7)} ms`,
      );
  }
  const max = (kind: string) =>
    Math.max(...results.filter((r) => r.kind === kind && !r.name.includes('(offset)')).map((r) => r.p99));
  const summary = { list_p99_ms_max: max('list'), search_p99_ms_max: max('search'), deep_page_p99_ms_max: max('deep') };
  console.log(values.json ? JSON.stringify({ results, ...summary }) : JSON.stringify(summary));
  server.closeAllConnections();
  server.close();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
