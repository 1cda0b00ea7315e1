import { fuzzApi } from '../fuzz/run';
import { startFuzzWorld } from '../fuzz/world';

// Every operation of /openapi.json driven with generated valid and invalid
// requests answers no 5xx, only documented statuses, and bodies that match the documented schemas.
// A few thousand cases here (bounded in time); `npm run fuzz` runs many more (scripts/fuzz.ts).

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS_PER_OPERATION ?? 35);

let world: Awaited<ReturnType<typeof startFuzzWorld>>;
beforeAll(async () => {
  world = await startFuzzWorld();
});
afterAll(() => world.close());

it('every operation answers generated requests as /openapi.json documents, never with a 5xx', async () => {
  const report = await fuzzApi({
    baseUrl: world.app.baseUrl,
    apiKey: world.apiKey,
    runsPerOperation: RUNS_PER_OPERATION,
    seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined,
    seedIds: world.seedIds,
    // Bounded in time: on a loaded machine fewer cases run rather than the suite slowing down
    // (about 2700 cases in 20-30 s on two idle cores).
    timeLimitMs: 60_000,
    log: (line) => console.log(line),
  });
  // However loaded the machine, every operation was driven (at least 3 cases each on average).
  const operations = new Set(Object.keys(report.statuses).map((key) => key.split(' ').slice(0, 2).join(' ')));
  expect(operations.size).toBeGreaterThanOrEqual(70);
  expect(report.cases).toBeGreaterThanOrEqual(operations.size * 3);
  expect({
    seed: report.seed,
    failures: report.failures.map((failure) => `${failure.operation}: ${failure.problems.join('; ')}`),
  }).toEqual({
    seed: report.seed,
    failures: [],
  });
  console.log(`${report.cases} cases in ${report.ms} ms (seed ${report.seed})`);
  if (process.env.FUZZ_STATS) console.log(JSON.stringify(report.statuses, null, 1));
}, 150_000);
