// The project's worker in a process of its own, so its memory can be read apart from the load generator.
// Usage: tsx bench/subscription-worker.ts <task queue>   (DATABASE_URL, TEMPORAL_ADDRESS, WORKFLOW_BUNDLE from env)
// Prints {"ready": true} once polling; answers each line "memory" on stdin with one JSON line, read after
// a full GC of every thread (bench/thread-memory.ts, preloaded with --require by bench/subscriptions.ts).
import readline from 'node:readline';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createPrisma } from '../src/db/prisma';
import { registeredGateways } from '../src/gateway-registrations';
import { createWorker, workerPoolSize } from '../src/temporal/worker';
import { startWorkflowStartSweeper } from '../src/temporal/workflow-starts';
import { collectEveryThread, smapsRollup } from './thread-memory';
import { temporalClient } from '../src/temporal/client';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const prisma = createPrisma(process.env.DATABASE_URL!, workerPoolSize());
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  // As the production worker runs (the app image): a prebuilt bundle, no bundler in the process.
  const bundle = process.env.WORKFLOW_BUNDLE;
  const worker = await createWorker({
    prisma,
    gateways: registeredGateways(prisma),
    connection,
    taskQueue: process.argv[2],
    ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
  });
  const running = worker.run();
  // As src/cli/worker.ts: the sweep of workflow_starts runs beside the worker (it finds nothing to do while the API starts its workflows).
  const sweeper = startWorkflowStartSweeper({
    prisma,
    temporal: temporalClient(connection),
    taskQueue: process.argv[2]!,
    eagerStart: true,
  });
  const commands = readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'memory') return;
    void collectEveryThread().then((heaps) => {
      const { rss, external, arrayBuffers } = process.memoryUsage();
      const smaps = smapsRollup();
      console.log(
        JSON.stringify({
          rss,
          // The main thread's V8 heap, and the other threads' (the SDK's workflow thread).
          heapUsed: heaps[0]!.used,
          threadsHeapUsed: heaps.slice(1).reduce((sum, heap) => sum + heap.used, 0),
          threadsHeapTotal: heaps.slice(1).reduce((sum, heap) => sum + heap.total, 0),
          threads: heaps.length,
          spaces: heaps.map((heap) =>
            Object.fromEntries(Object.entries(heap.spaces).map(([name, bytes]) => [name, Math.round(bytes / 1048576)])),
          ),
          external,
          arrayBuffers,
          anonymous: (smaps.Anonymous ?? 0) * 1024,
          cachedWorkflows: worker.getStatus().numCachedWorkflows,
          // CPU time of the whole process so far (every thread), in ms.
          cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
        }),
      );
    });
  });
  console.log(JSON.stringify({ ready: true }));
  await running; // until SIGTERM: the SDK's runtime shuts the worker down
  commands.close();
  await sweeper.stop();
  await connection.close();
  await prisma.$disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
