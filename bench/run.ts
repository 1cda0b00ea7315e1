// `npm run bench`: each figure beside a baseline measured in the same run, on this machine.
// Everything runs on loopback; every load is bounded in count or time and stops by itself.
// `npm run bench -- customers webhooks` runs only the sections named.
import { benchCustomers } from './customers';
import { benchWebhooks } from './webhooks';
import { benchSubscriptions } from './subscriptions';
import { startBenchServices, type BenchContext } from './support';

const SECTIONS: Record<string, (ctx: BenchContext) => Promise<void>> = {
  customers: benchCustomers,
  webhooks: benchWebhooks,
  subscriptions: benchSubscriptions,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  for (const name of wanted) if (!SECTIONS[name]) throw new Error(`Unknown section ${name}; sections: ${Object.keys(SECTIONS).join(', ')}`);
  const services = await startBenchServices();
  try {
    for (const [name, section] of Object.entries(SECTIONS)) {
      if (wanted.length === 0 || wanted.includes(name)) await section(services);
    }
  } finally {
    await services.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
