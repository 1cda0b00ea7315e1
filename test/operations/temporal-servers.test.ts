import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createPrisma, type Db } from '../../src/db/prisma';
import { WEBHOOK_MAX_ATTEMPTS } from '../../workflows/webhook-delivery';
import { createEnvWorker, createLocalEnv, createTimeSkippingEnv } from '../support/temporal';
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
});
