import { ApiError } from '../http/errors';
import { prorationsPastCeiling } from '../subscriptions';
import type { UpdateSubscriptionInput } from '../subscriptions';
import type { SubscriptionObject } from '../subscriptions';
import { updateSubscription, type SubscriptionDeps } from '../subscriptions';
import { upcomingInvoice } from './upcoming-invoice';

/**
 * PATCH /subscriptions/{id}. The items a change leaves are checked against the charge ceiling by the update
 * itself; a change that prorates is also refused (400 `amount_too_large` naming `items`, nothing changed) when
 * the invoice it leads to would pass it: the next period's with the proration lines waiting and this change's,
 * or with always_invoice the invoice charged at once (docs/api.md "Proration"). That invoice is the billing
 * code's own preview (GET /invoices/upcoming), so the renewal never meets a total the invoice would refuse. A
 * preview that cannot be made (no invoice to come, a state the update refuses, Temporal busy) leaves the answer
 * to the update.
 */
export async function changeSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  id: string,
  input: UpdateSubscriptionInput,
): Promise<SubscriptionObject> {
  if (input.items && input.proration_behavior !== 'none') {
    try {
      await upcomingInvoice(deps, accountId, {
        subscription: id,
        items: input.items,
        proration_behavior: input.proration_behavior,
      });
    } catch (error) {
      // The items alone past the ceiling: the update's own refusal, naming the item (items.N.quantity).
      if (error instanceof ApiError && error.code === 'amount_too_large' && error.param?.startsWith('items'))
        throw error;
      if (error instanceof ApiError && error.code === 'amount_too_large') throw prorationsPastCeiling(error.message);
      // Anything else is the update's to answer (it reads the same state): the preview only looks ahead.
    }
  }
  return updateSubscription(deps, accountId, id, input);
}
