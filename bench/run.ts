// `npm run bench`: each figure beside a baseline measured in the same run, on this machine, on both
// Temporal engines (the dev server, then the Temporal server on PostgreSQL), printed side by side at the end.
// Everything runs on loopback; every load is bounded in count or time and stops by itself.
// `npm run bench -- customers webhooks` runs only the sections named; BENCH_ENGINES=dev (or server) one engine.
// `--json` adds a last line with every figure, per engine: {"dev": {"read_ratio": ...}, "server": {...}}.
// `--only scale` (or the section's name) runs the data-at-scale section alone: its lists and searches on
// the first engine (they need no Temporal), its renewal storm on the server engine (BENCH_STORM_* sizes);
// its figures are the JSON line's "scale" object. `usage-storm` runs the licensed renewal storm and the metered one
// (BENCH_USAGE_STORM_SUBSCRIPTIONS) on the server engine: usage_storm_ratio in the JSON line.
import { benchCustomers } from './customers';
import { benchWebhooks } from './webhooks';
import { benchSubscriptions } from './subscriptions';
import { benchDashboard } from './dashboard';
import { benchScale } from './scale';
import { benchStorm, benchUsageStorm } from './storm';
import { benchStripe } from './stripe';
import { benchUsage } from './usage';
import { startBenchServices, type BenchContext, type Engine, type Figures } from './support';

const SECTIONS: Record<string, (ctx: BenchContext) => Promise<Figures>> = {
  customers: benchCustomers,
  webhooks: benchWebhooks,
  subscriptions: benchSubscriptions,
  dashboard: benchDashboard,
  // Data at scale: the lists on the first engine (no Temporal figure), the renewal storm on the server engine.
  // The Stripe adapter's charge path against stripe-mock, beside the stripe client's direct calls: no Temporal figure.
  stripe: async (ctx) => (ctx.engine === firstEngine ? benchStripe(ctx) : {}),
  // Usage ingestion needs no Temporal: on the first engine only.
  usage: async (ctx) => (ctx.engine === firstEngine ? benchUsage(ctx) : {}),
  scale: async (ctx) => ({ ...(ctx.engine === firstEngine ? await benchScale(ctx) : {}), ...(await benchStorm(ctx)) }),
  // Metered subscriptions billed at one period end beside the licensed renewal storm (server engine only).
  'usage-storm': benchUsageStorm,
};

/** The engine measured first: sections with no Temporal figure run there only. */
let firstEngine: Engine = 'dev';

/** A figure named `section.key` goes into the JSON line as {section: {key}} (the scale section's keys). */
function nested(figures: Figures): Record<string, number | Record<string, number>> {
  const out: Record<string, number | Record<string, number>> = {};
  for (const [key, value] of Object.entries(figures)) {
    const [section, name] = key.split('.');
    if (name === undefined) out[key] = value;
    else ((out[section!] ??= {}) as Record<string, number>)[name] = value;
  }
  return out;
}

/** Runs `work`, printing its lines as they come and answering them with its figures. */
async function capture(work: () => Promise<Figures>): Promise<{ lines: string[]; figures: Figures }> {
  const lines: string[] = [];
  const print = console.log;
  console.log = (...args: unknown[]) => {
    print(...args);
    lines.push(...args.map(String).join(' ').split('\n'));
  };
  try {
    return { lines, figures: await work() };
  } finally {
    console.log = print;
  }
}

function sideBySide(titles: string[], columns: string[][]): string {
  const width = Math.max(...columns[0]!.map((line) => line.length), titles[0]!.length) + 4;
  const rows = Math.max(...columns.map((column) => column.length));
  const out = [titles.map((title, i) => (i === 0 ? title.padEnd(width) : title)).join('')];
  for (let row = 0; row < rows; row += 1)
    out.push(
      columns
        .map((column, i) => (i === 0 ? (column[row] ?? '').padEnd(width) : (column[row] ?? '')))
        .join('')
        .trimEnd(),
    );
  return out.join('\n');
}

async function main(): Promise<void> {
  // The bench measures the service's throughput, not the per-key rate limiter (100/s by default), which
  // would answer most of its requests 429; every API it starts, in process or as a child, inherits this.
  process.env.RATE_LIMIT_PER_SECOND ??= '1000000';
  const json = process.argv.includes('--json');
  const wanted = process.argv.slice(2).filter((arg) => arg !== '--json' && arg !== '--only');
  for (const name of wanted)
    if (!SECTIONS[name]) throw new Error(`Unknown section ${name}; sections: ${Object.keys(SECTIONS).join(', ')}`);
  const engines = (process.env.BENCH_ENGINES ?? 'dev,server').split(',') as Engine[];
  firstEngine = engines[0]!;
  const results: Record<string, Record<string, string[]>> = {};
  const figures: Partial<Record<Engine, Figures>> = {};
  for (const engine of engines) {
    console.log(`\n=== ${engine} engine ===`);
    const services = await startBenchServices(engine);
    try {
      for (const [name, section] of Object.entries(SECTIONS)) {
        if (wanted.length > 0 && !wanted.includes(name)) continue;
        const result = await capture(() => section(services));
        (results[name] ??= {})[engine] = result.lines;
        figures[engine] = { ...figures[engine], ...result.figures };
      }
    } finally {
      await services.stop();
    }
  }
  if (engines.length > 1) {
    console.log('\n=== side by side ===');
    for (const [name, byEngine] of Object.entries(results)) {
      console.log(`\n[${name}]`);
      console.log(
        sideBySide(
          engines.map((engine) => `${engine} engine`),
          engines.map((engine) => byEngine[engine] ?? []),
        ),
      );
    }
  }
  if (json)
    console.log(
      JSON.stringify(Object.fromEntries(Object.entries(figures).map(([engine, values]) => [engine, nested(values)]))),
    );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
