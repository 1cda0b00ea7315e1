import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createSubscriptionActivities } from '../../activities/subscriptions';
import type { PaymentGateway } from '../../src/payments/gateway';
import { createGateway } from '../../src/payments/simulated-gateway';
import { billingDataConverter } from '../../src/temporal/payload-codec';
import { CARDS, customerWithCard } from '../support/payments';
import {
  expectStatus,
  invoicesOf,
  recordHistories,
  recurringPrice,
  settled,
  startSubscriptionWorld,
  subscriptionEvents,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

// A worker dies in the middle of a renewal, after the work of a step was done but before the
// workflow learned of it; a new worker finishes the renewal with exactly one invoice and one charge.
// The first worker stops the way a deployed worker does on SIGTERM: it cancels its running activity,
// whose attempt fails, and Temporal retries it on the new worker. The first worker keeps no workflow
// cache (as after a process restart), so the new worker replays the workflow from its history.

const HOUR_MS = 3_600_000;

/** Resolves when the step reached its crash point; the step then hangs until its worker shuts down. */
function crashPoint() {
  let reached!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  return {
    reached: reachedPromise,
    async hang(): Promise<never> {
      reached();
      await Context.current().cancelled;
      throw new Error('unreachable: cancelled rejects');
    },
  };
}

async function crashingWorker(world: SubscriptionWorld, activities: object): Promise<{ stop(): Promise<void> }> {
  const worker = await Worker.create({
    connection: world.env.nativeConnection,
    namespace: world.env.namespace ?? 'default',
    taskQueue: world.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    activities,
    dataConverter: billingDataConverter(),
    maxCachedWorkflows: 0,
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

async function renewalCrash(
  name: string,
  activitiesFor: (world: SubscriptionWorld, point: ReturnType<typeof crashPoint>) => object,
) {
  const world = await startSubscriptionWorld({ worker: false });
  try {
    const point = crashPoint();
    const first = await crashingWorker(world, activitiesFor(world, point));
    const { customer } = await customerWithCard(world.api, CARDS.succeeds);
    const price = await recurringPrice(world.api, { unitAmount: 4900 });
    const startAt = (await world.env.currentTimeMs()) + HOUR_MS;
    // A scheduled start, so the first renewal is the workflow's own: a period due at creation is
    // invoiced and charged by the API (decisions.md §14), and its workflow finds that done.
    const subscription = expectStatus(
      await world.api.post('/subscriptions', {
        customer: customer.id,
        items: [{ price, quantity: 1 }],
        trial_days: 0,
        start_date: unix(startAt),
      }),
      201,
      'POST /subscriptions',
    );
    await world.env.sleep(HOUR_MS + 1_000);

    await point.reached;
    await first.stop();
    await world.startWorker();
    await settled(world, subscription.id);

    const invoices = await invoicesOf(world, subscription.id);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ status: 'paid', total: 4900n, amountPaid: 4900n });
    expect(expectStatus(await world.api.get(`/subscriptions/${subscription.id}`), 200).latest_invoice).toBe(
      invoices[0]!.id,
    );
    expect(
      await world.app.prisma.gatewayCharge.findMany({ where: { accountId: world.accountId, kind: 'charge' } }),
    ).toHaveLength(1);
    const payments = await world.app.prisma.transaction.findMany({
      where: { accountId: world.accountId, invoiceId: invoices[0]!.id, type: 'payment' },
    });
    expect(payments.map((payment) => [payment.status, payment.amount])).toEqual([['succeeded', 4900n]]);
    const types = (await subscriptionEvents(world, subscription.id)).map((event) => event.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.updated',
      'invoice.created',
      'invoice.finalized',
      'invoice.payment_succeeded',
      'subscription.updated',
    ]);

    // The interrupted step did run twice: its first attempt failed with the worker, the second completed.
    const history = await workflowHandle(world, subscription.id).fetchHistory();
    const attempts = (history.events ?? []).flatMap((event) =>
      event.activityTaskStartedEventAttributes ? [event.activityTaskStartedEventAttributes.attempt] : [],
    );
    expect(attempts).toContain(2);
    await recordHistories(world, subscription.id, name);
  } finally {
    await world.close();
  }
}

describe('a worker killed in the middle of a renewal', () => {
  it('after the invoice was created but before the workflow knew: the new worker finds it, one invoice and one charge', async () => {
    await renewalCrash('crash-after-invoice-created', (world, point) => {
      const activities = createActivities({ prisma: world.app.prisma });
      return {
        ...activities,
        async createRenewalInvoice(input: Parameters<typeof activities.createRenewalInvoice>[0]) {
          await activities.createRenewalInvoice(input);
          return point.hang();
        },
      };
    });
  });

  it('while the charge was at the gateway (money moved, outcome not recorded): the retry charges nothing more', async () => {
    await renewalCrash('crash-during-charge', (world, point) => {
      const real = createGateway(world.app.prisma);
      const gateway: PaymentGateway = {
        async charge(request) {
          await real.charge(request);
          return point.hang();
        },
        refund: (request) => real.refund(request),
      };
      return {
        ...createActivities({ prisma: world.app.prisma }),
        ...createSubscriptionActivities({ prisma: world.app.prisma, gateway }),
      };
    });
  });
});
