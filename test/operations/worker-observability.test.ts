import { Writable } from 'node:stream';
import pino from 'pino';
import { Runtime } from '@temporalio/worker';
import { installWorkerRuntime } from '../../src/temporal/runtime';
import { serveWorkerMetrics } from '../../src/temporal/worker-metrics';
import { families, sample } from '../support/metrics';
import { webhookWorkflowId } from '../../src/webhooks/workflow-id';
import { startTestApp, startTestWorker, type TestApp } from '../support/harness';
import { freePort } from '../support/ports';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import {
  accountWithDestination,
  allowPrivateWebhookTargets,
  manualRelay,
  waitUntil,
  writeEvent,
} from '../support/webhooks';

/**
 * The worker process's observability, as src/cli/worker.ts sets it up with
 * installWorkerRuntime: SDK logs as pino JSON carrying workflowId and runId, and the SDK's Prometheus
 * exporter (temporal_* series and billing_webhook_attempts) on its own port.
 */
const TASK_QUEUE = 'worker-observability-test';
const lines: string[] = [];
let metricsPort: number;
let app: TestApp;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let receiver: WebhookReceiver;

beforeAll(async () => {
  allowPrivateWebhookTargets();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  metricsPort = await freePort();
  // Before any connection: the runtime is installed once per process, as the worker entry point does.
  installWorkerRuntime({ logger: pino({ level: 'debug' }, sink), sdkLogLevel: 'WARN', metricsPort });
  app = await startTestApp();
  worker = await startTestWorker(app.prisma, TASK_QUEUE);
  // 500 first: the relay's attempt 1 asks for a retry, which the workflow makes as its local activity (attempt 2).
  receiver = await startWebhookReceiver({ reply: (_request, index) => (index === 0 ? 500 : 200) });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

it('logs workflow and activity lines as JSON with the workflow id and run id, and exports the SDK metrics', async () => {
  const { accountId, destination } = await accountWithDestination(app.prisma, receiver.url);
  const event = await writeEvent(app.prisma, accountId);
  // As the worker process does: attempt 1 (the relay's) counted on the runtime's meter.
  const relay = manualRelay(app.prisma, app.temporal, TASK_QUEUE, () => [accountId], {
    metricMeter: Runtime.instance().metricMeter,
  });
  expect(await relay.runOnce()).toBe(1);
  // The retry comes after the schedule's first delay (15 s +-20%), in real time.
  await receiver.waitFor(2, { timeoutMs: 40_000 });
  const workflowId = webhookWorkflowId(event.id, destination.id);
  const { runId } = await app.temporal.workflow.getHandle(workflowId).describe();
  await app.temporal.workflow.getHandle(workflowId).result();

  const entries = await waitUntil(async () => {
    const parsed = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.workflowId === workflowId);
    return parsed.some((entry) => entry.msg === 'Workflow completed') ? parsed : undefined;
  });
  for (const entry of entries)
    expect(entry).toEqual(
      expect.objectContaining({ workflowId, runId, level: expect.any(Number), msg: expect.any(String) }),
    );
  expect(entries).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ msg: 'Workflow started', workflowType: 'deliverWebhook' }),
      expect.objectContaining({
        msg: 'Activity completed',
        activityType: 'attemptWebhookDelivery',
        durationMs: expect.any(Number),
      }),
    ]),
  );
  // SDK housekeeping below WARN (bundling, polling) stays out.
  expect(
    lines.map((line) => JSON.parse(line)).filter((entry) => entry.workflowId === undefined && entry.level < 40),
  ).toEqual([]);

  const text = await waitUntil(async () => {
    const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return body.includes('billing_webhook_attempts') ? body : undefined;
  });
  expect(text).toMatch(/temporal_workflow_completed\S* \d/);
  expect(text).toMatch(/temporal_(local_)?activity_execution_latency\S*_bucket/);
  expect(text).toMatch(
    new RegExp(`billing_webhook_attempts\\S*outcome="retryable"\\S*taskQueue="${TASK_QUEUE}"\\S* 1`),
  );
  expect(text).toMatch(new RegExp(`billing_webhook_attempts\\S*outcome="success"\\S*taskQueue="${TASK_QUEUE}"\\S* 1`));
  // The worker offers its WORKER_WORKFLOW_TASK_SLOTS (40) workflow task slots (docs/performance.md,
  // Twelfth round). Pollers hold a few.
  const workflowSlots = text.match(
    new RegExp(
      `temporal_worker_task_slots_available\\{[^}]*task_queue="${TASK_QUEUE}"[^}]*worker_type="WorkflowWorker"[^}]*\\} (\\d+)`,
    ),
  );
  expect(Number(workflowSlots?.[1])).toBeGreaterThan(25);
  expect(Number(workflowSlots?.[1])).toBeLessThanOrEqual(40);

  // The worker process's /metrics (src/cli/worker.ts, WORKER_METRICS_PORT): the SDK's series, then the service's own.
  const served = await serveWorkerMetrics({
    port: 0,
    host: '127.0.0.1',
    sdkMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
  });
  try {
    const both = await (await fetch(`http://127.0.0.1:${served.port}/metrics`)).text();
    expect(both).toMatch(/temporal_workflow_completed\S* \d/);
    expect(both).toMatch(/billing_webhook_attempts\S*outcome="success"/);
    expect(sample(both, 'billing_worker_sdk_metrics_up')).toBe(1);
    for (const name of [
      'billing_charges_total',
      'billing_charge_attempts_total',
      'billing_charged_cents_total',
      'process_resident_memory_bytes',
    ])
      expect(families(both).has(name)).toBe(true);
    // No family twice: the SDK's exporter and prom-client name different things.
    const declared = [...both.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
    expect(declared.length).toBe(new Set(declared).size);
    expect((await fetch(`http://127.0.0.1:${served.port}/other`)).status).toBe(404);
  } finally {
    await served.close();
  }
}, 90_000);
