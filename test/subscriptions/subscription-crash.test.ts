import { HOUR_MS } from '../../src/lib/durations';
import { startCrashingWorker } from '../support/crashing-workers';
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
} from '../support/subscriptions';

// A worker dies (SIGKILL) in the middle of a renewal, after the work of a step was done but before the
// workflow learned of it; a new worker finishes the renewal with exactly one invoice and one charge.
// Since a period's billing runs as local activities in one workflow task (docs/decisions.md §39), the
// killed worker's task is lost with it: the server times the task out, and the new worker replays the
// workflow and runs the period's steps again, each finding what the first run did.

async function renewalCrash(name: string, step: 'invoice-created' | 'charged') {
  const world = await startSubscriptionWorld({ worker: false });
  try {
    const first = await startCrashingWorker(world, step);
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

    await first.reached;
    await first.kill();
    await world.startWorker();
    await settled(world, subscription.id, 90_000);

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

    // The killed worker's workflow task was lost (timed out at the server) and run again by the new one.
    const history = await workflowHandle(world, subscription.id).fetchHistory();
    expect((history.events ?? []).some((event) => event.workflowTaskTimedOutEventAttributes)).toBe(true);
    await recordHistories(world, subscription.id, name);
  } finally {
    await world.close();
  }
}

describe('a worker killed in the middle of a renewal', () => {
  it('after the invoice was created but before the workflow knew: the new worker finds it, one invoice and one charge', async () => {
    await renewalCrash('crash-after-invoice-created-local-steps', 'invoice-created');
  }, 150_000);

  it('while the charge was at the gateway (money moved, outcome not recorded): the retry charges nothing more', async () => {
    await renewalCrash('crash-during-charge-local-steps', 'charged');
  }, 150_000);
});
