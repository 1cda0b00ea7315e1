import { historyView } from '../support/history';
import { CARDS, customerWithCard } from '../support/payments';
import {
  createSubscription,
  recurringPrice,
  startSubscriptionWorld,
  subscriptionState,
  unix,
  withFirstTaskDelayed,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

// When a subscription's workflow runs its first task (docs/decisions.md §14): at once by default, so that
// its `state` query and current details answer from its first second; or, with
// SUBSCRIPTION_FIRST_TASK=first-step, at its first step (a start delay). Read by the API when it starts a workflow.
delete process.env.SUBSCRIPTION_FIRST_TASK;

describe("a subscription workflow's first task", () => {
  let world: SubscriptionWorld;
  beforeAll(async () => {
    world = await startSubscriptionWorld();
    await world.startWorker();
  });
  afterAll(() => world?.close());

  async function paidAtCreation() {
    const { customer } = await customerWithCard(world.api, CARDS.succeeds);
    const price = await recurringPrice(world.api, { unitAmount: 1500 });
    return createSubscription(world.api, {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
    });
  }

  it('runs at once with the default settings: state answers right after a creation paid at once, the renewal timer is in the history', async () => {
    const subscription = await paidAtCreation();
    expect(subscription).toMatchObject({ status: 'active' });

    const state = await subscriptionState(world, subscription.id);
    expect(state).toMatchObject({ status: 'active', latestInvoiceId: subscription.latest_invoice });

    const view = await historyView(workflowHandle(world, subscription.id));
    expect(view.startDelayMs ?? 0).toBe(0);
    expect(view.workflowTasks).toBeGreaterThanOrEqual(1);
    expect(view.timers.length).toBe(1);
  });

  it('with SUBSCRIPTION_FIRST_TASK=first-step waits for the renewal: no task has run, so Temporal answers no query yet', async () => {
    const subscription = await withFirstTaskDelayed(paidAtCreation);
    const view = await historyView(workflowHandle(world, subscription.id));
    expect(view.startDelayMs).toBeGreaterThan(0);
    expect(view).toMatchObject({ workflowTasks: 0, timers: [] });
  });
});
