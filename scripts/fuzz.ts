// `npm run fuzz [-- --runs N --seed S --invalid 0.5 --stats]`: the OpenAPI fuzzer of test/api/openapi-fuzz.test.ts
// with many more cases, on its own PostgreSQL and Temporal dev server (started and removed as the tests do).
// Prints each failing operation's first failing request and answer, and the statuses seen; exits 1 on any failure.
import { parseArgs } from 'node:util';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '500' },
      seed: { type: 'string' },
      invalid: { type: 'string', default: '0.5' },
      stats: { type: 'boolean', default: false },
    },
  });
  // Set before the app's modules load: the logger reads it once.
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  const { default: globalSetup } = await import('../test/support/global-setup');
  const { default: globalTeardown } = await import('../test/support/global-teardown');
  const { fuzzApi } = await import('../test/fuzz/run');
  const { startFuzzWorld } = await import('../test/fuzz/world');
  await globalSetup();
  const world = await startFuzzWorld();
  try {
    const report = await fuzzApi({
      baseUrl: world.app.baseUrl,
      apiKey: world.apiKey,
      runsPerOperation: Number(values.runs),
      seed: values.seed === undefined ? undefined : Number(values.seed),
      invalidShare: Number(values.invalid),
      seedIds: world.seedIds,
      log: (line) => console.log(line),
    });
    const byStatus: Record<string, number> = {};
    for (const [key, count] of Object.entries(report.statuses)) {
      const status = key.split(' ').pop()!;
      byStatus[status] = (byStatus[status] ?? 0) + count;
    }
    if (values.stats) for (const [key, count] of Object.entries(report.statuses)) console.log(`${key}: ${count}`);
    console.log(`${report.cases} cases in ${report.ms} ms, seed ${report.seed}; statuses ${JSON.stringify(byStatus)}`);
    console.log(report.failures.length === 0 ? 'no failures' : `${report.failures.length} operations failed`);
    return report.failures.length === 0 ? 0 : 1;
  } finally {
    await world.close();
    await globalTeardown();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
