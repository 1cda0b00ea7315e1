import { historyView } from '../support/history';
import { CARDS, customerWithCard } from '../support/payments';
import {
  createSubscription,
  recurringPrice,
  startSubscriptionWorld,
  subscriptionState,
  unix,
  workflowHandle,
  type SubscriptionWorld,
} from '../support/subscriptions';

// SUBSCRIPTION_FIRST_TASK=at-once (docs/decisions.md §14): the operator's choice of queries from a
// subscription's first second over the cheaper start delay. Read by the API when it starts a workflow.
process.env.SUBSCRIPTION_FIRST_TASK = 'at-once';

describe('a subscription whose first task runs at once (SUBSCRIPTION_FIRST_TASK=at-once)', () => {
  let world: SubscriptionWorld;
  beforeAll(async () => {
    world = await startSubscriptionWorld();
    await world.startWorker();
  });
  afterAll(() => world?.close());

  it('answers its state query right after a creation paid at once, with its renewal timer in the history', async () => {
    const { customer } = await customerWithCard(world.api, CARDS.succeeds);
    const price = await recurringPrice(world.api, { unitAmount: 1500 });
    const subscription = await createSubscription(world.api, {
      customer: customer.id,
      items: [{ price, quantity: 1 }],
      trial_days: 0,
      start_date: unix(await world.env.currentTimeMs()),
    });
    expect(subscription).toMatchObject({ status: 'active' });

    const state = await subscriptionState(world, subscription.id);
    expect(state).toMatchObject({ status: 'active' });

    const view = await historyView(workflowHandle(world, subscription.id));
    expect(view.startDelayMs ?? 0).toBe(0);
    expect(view.workflowTasks).toBeGreaterThanOrEqual(1);
    expect(view.timers.length).toBe(1);
  });
});
