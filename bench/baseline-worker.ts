// The bench's baseline worker (bench/baseline-workflows.ts), in a process of its own as the service's workers are.
// Usage: tsx bench/baseline-worker.ts <task queue> <storm | creation>   (DATABASE_URL, TEMPORAL_ADDRESS from env)
//   storm: the renewal storm's baseline, on the SDK's default worker settings (bench/storm.ts);
//   creation: the creation baseline, on the service's own worker settings (src/temporal/worker.ts), like for like.
// Prints {"ready": true} once polling; answers each line "memory" on stdin with {"rss": bytes}.
import readline from 'node:readline';
import { Pool } from 'pg';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { workerPoolSize, workerSettings } from '../src/temporal/worker';
import { billingDataConverter } from '../src/temporal/payload-codec';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const [taskQueue, mode] = process.argv.slice(2);
  if (mode !== 'storm' && mode !== 'creation')
    throw new Error('usage: baseline-worker.ts <task queue> <storm | creation>');
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: workerPoolSize() });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: taskQueue!,
    workflowsPath: require.resolve('./baseline-workflows'),
    ...(mode === 'creation' ? workerSettings() : { dataConverter: billingDataConverter() }),
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
