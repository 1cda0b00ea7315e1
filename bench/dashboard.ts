import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { Pool } from 'pg';
import { projectRoot } from '../src/config';
import { TSX_NODE_ARGS } from '../src/runtime/processes';
import { createAccount } from '../src/accounts/account.service';
import type { BenchContext, Figures } from './support';

/**
 * The dashboard's reads on a large account (the merchant dashboard issue's figures): the home screen's
 * call (GET /reports/overview) and each list's first page, p99 latency with one merchant clicking
 * around (2 connections, BENCH_DASHBOARD_SECONDS each), on an account seeded in SQL with
 * BENCH_DASHBOARD_CUSTOMERS customers (100,000), three invoices and a charge each, and ten events
 * each. The work is the database's and the API's alone, the same on both engines: measured once, on
 * the first engine of the run. Goal: p99 <= 100 ms each.
 */
const CUSTOMERS = Number(process.env.BENCH_DASHBOARD_CUSTOMERS ?? 100_000);
const SECONDS = Number(process.env.BENCH_DASHBOARD_SECONDS ?? 5);
const CONNECTIONS = 2;

/** What the home screen and each list's first page ask (src/dashboard/pages). */
const READS: Record<string, string> = {
  home_overview: '/reports/overview',
  customers: '/customers?page=1&take=20',
  customer_search: '/customers?page=1&take=20&search=customer%2012345',
  invoices: '/invoices?page=1&take=20',
  invoices_open: '/invoices?page=1&take=20&status=open',
  subscriptions: '/subscriptions?page=1&take=20',
  transactions: '/transactions?page=1&take=20',
  payment_plans: '/payment-plans?page=1&take=20',
  audit_log: '/audit-log?page=1&take=20',
  events: '/events?page=1&take=20',
};

let measured = false;

/** One statement per table, each a generate_series: rows shaped as the API writes them, ids in their formats. */
export async function seed(databaseUrl: string, accountId: string): Promise<number> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  const started = Date.now();
  try {
    await pool.query(
      `INSERT INTO customers (id, account_id, name, email, created_at)
       SELECT 'cus_' || lpad(n::text, 24, '0'), $1, 'Customer ' || n, 'customer' || n || '@example.com',
              now() - make_interval(mins => n)
         FROM generate_series(1, $2::int) AS n`,
      [accountId, CUSTOMERS],
    );
    await pool.query(
      `INSERT INTO invoices (id, account_id, customer_id, number, status, collection_method, billing_reason, currency,
                            period_start, period_end, subtotal, subtotal_excluding_tax, tax, total, total_excluding_tax,
                            total_taxes, amount_due, amount_paid, finalized_at, paid_at, created_at)
       SELECT gen_random_uuid()::text, $1, 'cus_' || lpad(((n - 1) / 3 + 1)::text, 24, '0'),
              'INV-' || lpad(n::text, 6, '0'), CASE WHEN n % 10 = 0 THEN 'open' ELSE 'paid' END,
              'charge_automatically', 'subscription_cycle', 'USD',
              now() - make_interval(days => n % 365), now() - make_interval(days => n % 365) + interval '1 month',
              4900, 4900, 0, 4900, 4900, '[]'::jsonb, CASE WHEN n % 10 = 0 THEN 4900 ELSE 0 END,
              CASE WHEN n % 10 = 0 THEN 0 ELSE 4900 END, now() - make_interval(days => n % 365),
              CASE WHEN n % 10 = 0 THEN NULL ELSE now() - make_interval(days => n % 365) END,
              now() - make_interval(mins => n)
         FROM generate_series(1, $2::int * 3) AS n`,
      [accountId, CUSTOMERS],
    );
    await pool.query(
      `INSERT INTO transactions (id, account_id, customer_id, type, status, amount, currency, created_at)
       SELECT 'txn_' || lpad(n::text, 24, '0'), $1, 'cus_' || lpad(n::text, 24, '0'), 'payment',
              CASE WHEN n % 20 = 0 THEN 'failed' ELSE 'succeeded' END, 4900, 'USD', now() - make_interval(mins => n)
         FROM generate_series(1, $2::int) AS n`,
      [accountId, CUSTOMERS],
    );
    await pool.query(
      `INSERT INTO events (id, account_id, type, data, created_at, dispatched_at, object_id, customer_id)
       SELECT 'evt_' || lpad(n::text, 24, '0'), $1, 'customer.updated',
              jsonb_build_object('id', 'cus_' || lpad(((n - 1) / 10 + 1)::text, 24, '0')), now() - make_interval(secs => n), now(),
              'cus_' || lpad(((n - 1) / 10 + 1)::text, 24, '0'), 'cus_' || lpad(((n - 1) / 10 + 1)::text, 24, '0')
         FROM generate_series(1, $2::int * 10) AS n`,
      [accountId, CUSTOMERS],
    );
    // What autovacuum does soon after the seed's inserts (as bench/overview-explain.ts and the scale section do): without
    // it the reads' index-only scans fetch every row from the heap until autovacuum gets there, sometimes during the
    // home's measurement, the first, and sometimes not.
    await pool.query('VACUUM (ANALYZE) customers, invoices, transactions, events');
  } finally {
    await pool.end();
  }
  return (Date.now() - started) / 1000;
}

async function startApi(ctx: BenchContext): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [...TSX_NODE_ARGS, path.join(__dirname, 'server-process.ts'), 'api'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATABASE_URL: ctx.databaseUrl,
      TEMPORAL_ADDRESS: ctx.temporalAddress,
      LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk) => resolve(JSON.parse(String(chunk)).port));
    child.once('exit', (code) => reject(new Error(`api server exited with ${code}`)));
  });
  return { port, child };
}

/** The bytes of `url` as they come over the wire when the client takes `encoding` (node:http decompresses nothing). */
function wireBytes(url: string, encoding: 'gzip' | 'br'): Promise<{ bytes: number; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { 'accept-encoding': encoding } }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => resolve({ bytes, encoding: response.headers['content-encoding'] }));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/**
 * The JavaScript a first visit loads as the API serves it (goal: under 300 KB gzip-compressed): the scripts
 * /dashboard names, each read over HTTP as a browser taking gzip, then brotli, would (docs/decisions.md §19).
 */
async function firstLoadJavaScriptKb(baseUrl: string): Promise<{ gzip: number; br: number }> {
  const html = await fetch(`${baseUrl}/dashboard`).then((response) => response.text());
  const scripts = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+\.js)"/g)].map((match) => match[1]!);
  const kb = async (encoding: 'gzip' | 'br') => {
    let total = 0;
    for (const script of new Set(scripts)) {
      const answer = await wireBytes(`${baseUrl}${script}`, encoding);
      if (answer.encoding !== encoding)
        throw new Error(`${script} came ${answer.encoding ?? 'uncompressed'}, not ${encoding}`);
      total += answer.bytes;
    }
    return Math.round(total / 102.4) / 10;
  };
  return { gzip: await kb('gzip'), br: await kb('br') };
}

export async function benchDashboard(ctx: BenchContext): Promise<Figures> {
  if (measured) {
    console.log('\nDashboard reads: measured on the first engine (the same database work on both)');
    return {};
  }
  measured = true;
  const account = await createAccount(ctx.prisma, { name: 'Large merchant', role: 'developer', paymentPlans: true });
  const seconds = await seed(ctx.databaseUrl, account.account_id);
  console.log(
    `\nDashboard reads on one account of ${CUSTOMERS} customers, ${CUSTOMERS * 3} invoices, ${CUSTOMERS} charges and ` +
      `${CUSTOMERS * 10} events (seeded in ${seconds.toFixed(0)} s): ${CONNECTIONS} connections, ${SECONDS} s each, after a warm-up`,
  );
  const api = await startApi(ctx);
  const figures: Figures = {};
  const table: Record<string, { 'req/s': number; 'p50 ms': number; 'p99 ms': number }> = {};
  try {
    for (const [name, route] of Object.entries(READS)) {
      const url = `http://127.0.0.1:${api.port}${route}`;
      const headers = { 'cc-api-key': account.api_key };
      await autocannon({ url, headers, connections: 1, amount: 20 });
      const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
      if (result.errors || result.non2xx) {
        const answer = await fetch(url, { headers }).then((response) => response.text());
        throw new Error(`${route}: ${result.errors} errors, ${result.non2xx} non-2xx, e.g. ${answer.slice(0, 300)}`);
      }
      table[route] = {
        'req/s': Math.round(result.requests.average),
        'p50 ms': result.latency.p50,
        'p99 ms': result.latency.p99,
      };
      figures[`dashboard_${name}_p99_ms`] = result.latency.p99;
    }
    const firstLoad = await firstLoadJavaScriptKb(`http://127.0.0.1:${api.port}`);
    figures.dashboard_first_load_js_gzip_kb = firstLoad.gzip;
    figures.dashboard_first_load_js_br_kb = firstLoad.br;
  } finally {
    api.child.kill('SIGTERM');
  }
  console.table(table);
  const slow = Object.entries(figures).filter(([name, p99]) => name.endsWith('_p99_ms') && p99 > 100);
  console.log(
    `dashboard first load: ${figures.dashboard_first_load_js_gzip_kb} KB of JavaScript as served gzip-compressed, ` +
      `${figures.dashboard_first_load_js_br_kb} KB brotli (goal: under 300 KB)`,
  );
  console.log(
    slow.length === 0
      ? 'dashboard reads: every p99 <= 100 ms'
      : `dashboard reads over 100 ms at p99: ${slow.map(([name, p99]) => `${name} ${p99} ms`).join(', ')}`,
  );
  return figures;
}
