// A subscription worker in a process of its own that stops at a step of a renewal and waits there, to be
// killed with SIGKILL by test/subscriptions/subscription-crash.test.ts (a worker lost mid-renewal).
// Usage: tsx test/support/crashing-worker.ts <task queue> <step: invoice-created | charged | none>
//   (TEMPORAL_ADDRESS, DATABASE_URL, TEST_WORKFLOW_BUNDLE from env). Prints "reached" once at the step.
// Or: tsx test/support/crashing-worker.ts <task queue> webhook-sending <HTTP timeout ms>: the webhook
//   attempts with that timeout, killed by test/webhooks/webhook-delivery.test.ts while an attempt's request
//   is at its receiver (sent, not recorded); the test sees the request itself.
//   Step `none`: the project's activities as they are, killed where the test sees fit (test/stripe-gateway/
//   stripe-worker-kill.test.ts kills it while Stripe's answer to its charge is held).
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createSubscriptionActivities } from '../../activities/subscriptions';
import { createWebhookActivities } from '../../activities/webhooks';
import { createPrisma } from '../../src/db/prisma';
import { registeredGateways } from '../../src/gateway-registrations';
import { wrappedGateways } from './payments';
import { billingDataConverter } from '../../src/temporal/payload-codec';

/** Tells the test the step's work is done, then waits for the SIGKILL. */
function reached(): Promise<never> {
  console.log('reached');
  return new Promise<never>(() => undefined);
}

async function main(): Promise<void> {
  const [taskQueue, step, httpTimeoutMs] = process.argv.slice(2);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const prisma = createPrisma(process.env.DATABASE_URL!, 5);
  const activities = createActivities({ prisma, gateways: registeredGateways(prisma) });
  const gateways = wrappedGateways(prisma, (real) => ({
    async charge(request) {
      await real.charge(request);
      return reached();
    },
  }));
  const crashing =
    step === 'webhook-sending'
      ? createWebhookActivities({ prisma, httpTimeoutMs: Number(httpTimeoutMs) })
      : step === 'charged'
        ? { ...activities, ...createSubscriptionActivities({ prisma, gateways }) }
        : step === 'none'
          ? activities
          : {
              ...activities,
              async createRenewalInvoice(input: Parameters<typeof activities.createRenewalInvoice>[0]) {
                await activities.createRenewalInvoice(input);
                return reached();
              },
            };
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
    taskQueue: taskQueue!,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities: crashing,
    dataConverter: billingDataConverter(),
  });
  console.log('polling');
  await worker.run();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
