// Times the list, search and balance requests of one account one after another (no concurrency, so it
// can run beside other work on a small machine): docs/performance.md, "Data at scale".
// Usage: DATABASE_URL=... npm run measure:lists -- --key sk_test_... [--runs 200] [--json]
// The account is one `npm run seed:scale` made; its ids are found through the API itself.
import { parseArgs } from 'node:util';
import { measureLists, startListApi } from '../bench/scale';

const { values } = parseArgs({
  options: {
    key: { type: 'string' },
    runs: { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
  },
});

async function main(): Promise<void> {
  if (!values.key || !process.env.DATABASE_URL) throw new Error('DATABASE_URL and --key are required');
  const api = await startListApi(process.env.DATABASE_URL);
  const times = await measureLists(api.baseUrl, values.key, Number(values.runs), (line) => {
    if (!values.json) console.log(line);
  });
  const summary = {
    list_p99_ms_max: times.list_p99_ms_max,
    search_p99_ms_max: times.search_p99_ms_max,
    deep_page_p99_ms_max: times.deep_page_p99_ms_max,
  };
  console.log(JSON.stringify(values.json ? times : summary));
  api.close();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
