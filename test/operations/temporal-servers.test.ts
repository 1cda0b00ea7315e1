import crypto from 'node:crypto';
import { DAY_MS } from '../../src/lib/durations';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createPrisma, type Db } from '../../src/db/prisma';
import { timeSkippingServerPath } from '../../src/runtime/tools';
import { WEBHOOK_MAX_ATTEMPTS } from '../../workflows/webhook-delivery';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import {
  PAYMENT_PLAN_WORKFLOW_TYPE,
  paymentPlanWorkflowId,
  type PlanSnapshot,
} from '../../workflows/payment-plan-contract';
import { createEnvWorker, createLocalEnv, createTimeSkippingEnv, terminateWhenIdle } from '../support/temporal';
import { startWebhookReceiver } from '../support/webhook-receiver';
import {
  accountWithDestination,
  allowPrivateWebhookTargets,
  deliveryHandle,
  manualRelay,
  writeEvent,
} from '../support/webhooks';

// Both Temporal servers the project uses run a real project workflow (deliverWebhook) end to end:
// the Java time-skipping test server and a fresh Temporal CLI dev server.

let prisma: Db;
beforeAll(() => {
  allowPrivateWebhookTargets();
  prisma = createPrisma(process.env.DATABASE_URL!, 5);
});
afterAll(() => prisma.$disconnect());

async function deliverOnce(env: TestWorkflowEnvironment, taskQueue: string, reply: number) {
  const receiver = await startWebhookReceiver({ reply });
  const { accountId, destination } = await accountWithDestination(prisma, receiver.url);
  const event = await writeEvent(prisma, accountId);
  const worker = await createEnvWorker(env, prisma, taskQueue);
  const relay = manualRelay(prisma, env.client, taskQueue, () => [accountId]);
  try {
    expect(await relay.runOnce()).toBe(1);
    const state = await worker.runUntil(deliveryHandle(env.client, event.id, destination.id).result());
    return { state, receiver };
  } finally {
    await relay.stop();
    await receiver.close();
  }
}

describe('Temporal servers', () => {
  it('time-skipping test server: the whole ~43-minute retry schedule of deliverWebhook finishes in seconds', async () => {
    const env = await createTimeSkippingEnv();
    try {
      const wallStarted = Date.now();
      const { state, receiver } = await deliverOnce(env, 'servers-time-skipping', 503);
      const wallSeconds = (Date.now() - wallStarted) / 1000;
      expect(state.status).toBe('failure');
      expect(state.attempts).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
      expect(receiver.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
      const workflowMinutes = (state.attempts.at(-1)!.scheduledAt - state.attempts[0]!.scheduledAt) / 60_000;
      expect(workflowMinutes).toBeGreaterThan(43 * 0.8);
      expect(workflowMinutes).toBeLessThan(43 * 1.2);
      expect(wallSeconds).toBeLessThan(60);
    } finally {
      await env.teardown();
    }
  });

  it("time-skipping test server: a JVM slower to answer than the SDK's 5 s still starts", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'slow-test-server-'));
    const launcher = path.join(dir, 'slow-temporal-test-server');
    fs.writeFileSync(launcher, `#!/bin/sh\nsleep 7\nexec '${timeSkippingServerPath()}' "$@"\n`, { mode: 0o755 });
    const started = Date.now();
    const env = await createTimeSkippingEnv(launcher);
    try {
      expect(Date.now() - started).toBeGreaterThan(7_000);
      expect(env.supportsTimeSkipping).toBe(true);
      const before = Date.now();
      await env.sleep(30 * 86_400_000);
      expect(Date.now() - before).toBeLessThan(10_000);
    } finally {
      await env.teardown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Temporal CLI dev server (createLocal): deliverWebhook delivers to a loopback receiver', async () => {
    const env = await createLocalEnv();
    try {
      const { state, receiver } = await deliverOnce(env, 'servers-local', 200);
      expect(state.status).toBe('success');
      expect(state.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'success', statusCode: 200 })]);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await env.teardown();
    }
  });

  it('time-skipping test server: a workflow stopped by the tests (terminateWhenIdle) mid-activity leaves time skipping free', async () => {
    // Terminated while its activity ran, the Java server kept time skipping held: 12 days then took 12 real days.
    const env = await createTimeSkippingEnv();
    try {
      const planId = `ppl_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;
      const taskQueue = `servers-terminate-${crypto.randomUUID()}`;
      let activityStarted!: () => void;
      const running = new Promise<void>((resolve) => (activityStarted = resolve));
      const snapshot: PlanSnapshot = {
        planId,
        status: 'pending',
        hasPaymentMethod: false,
        pastDueAt: null,
        defaultAfterDays: 14,
        installments: [],
        openTerminalPayments: [],
      };
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
        activities: {
          async syncPaymentPlan() {
            activityStarted();
            await new Promise((resolve) => setTimeout(resolve, 1500));
            return snapshot;
          },
        },
        dataConverter: billingDataConverter(),
      });
      await worker.runUntil(async () => {
        const handle = await env.client.workflow.start(PAYMENT_PLAN_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: paymentPlanWorkflowId(planId),
          args: [{ planId, accountId: 'acct_servers', customerId: 'cus_servers' }],
        });
        await running;
        await terminateWhenIdle(handle, 'test over');
        expect((await handle.describe()).status.name).toBe('TERMINATED');
      });

      const before = await env.currentTimeMs();
      const skipped = await Promise.race([
        env.sleep(12 * DAY_MS).then(() => 'skipped' as const),
        new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 30_000)),
      ]);
      expect(skipped).toBe('skipped');
      expect((await env.currentTimeMs()) - before).toBeGreaterThanOrEqual(12 * DAY_MS);
    } finally {
      await env.teardown();
    }
  });
});
