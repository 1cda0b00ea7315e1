// The renewal storm's baseline worker (bench/storm.ts), in a process of its own as the service's workers are.
// Usage: tsx bench/storm-baseline-worker.ts <task queue>   (DATABASE_URL, TEMPORAL_ADDRESS from env)
// Prints {"ready": true} once polling; answers each line "memory" on stdin with {"rss": bytes}.
import readline from 'node:readline';
import { Pool } from 'pg';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { workerPoolSize } from '../src/temporal/worker';
import { billingDataConverter } from '../src/temporal/payload-codec';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: workerPoolSize() });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.argv[2]!,
    workflowsPath: require.resolve('./storm-workflows'),
    dataConverter: billingDataConverter(),
    activities: {
      async writeStormRow(id: string): Promise<void> {
        await pool.query('INSERT INTO bench_storm_rows (id) VALUES ($1) ON CONFLICT DO NOTHING', [id]);
      },
    },
  });
  const commands = readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() === 'memory') console.log(JSON.stringify({ rss: process.memoryUsage().rss }));
  });
  const running = worker.run();
  console.log(JSON.stringify({ ready: true }));
  await running; // until SIGTERM: the SDK's runtime shuts the worker down
  commands.close();
  await pool.end();
  await connection.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
