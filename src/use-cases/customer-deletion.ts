import type { Db, Tx } from '../db/prisma';
import { markCustomerDeleted } from '../customers';
import { lockCustomer } from '../customers';
import { conflict } from '../http/errors';
import { countCustomerInvoices, readCustomerDraftIds, voidInTx } from '../invoices';
import { countCustomerPlans } from '../payment-plans';
import { countCustomerSubscriptions } from '../subscriptions';
import { detachAllInTx, detachCustomerMethodsAtProcessor } from '../payments';
import type { Gateways } from '../payments';

/**
 * Deleting a customer: a use case above the resources it touches (customers, subscriptions, payment
 * plans, invoices, payment methods), so that none of their modules imports another in a circle
 * (docs/architecture.md, "Layers").
 */

const LIVE_SUBSCRIPTION_STATUSES = ['scheduled', 'trialing', 'active', 'past_due', 'paused'];
const LIVE_PLAN_STATUSES = ['pending', 'active', 'past_due', 'defaulted'];

/**
 * A customer that is still being billed cannot be deleted: its subscriptions and payment plans
 * would go on running against a customer nobody can see. They are canceled first (409 otherwise).
 */
async function refuseWhileBilled(db: Db | Tx, accountId: string, customerId: string): Promise<void> {
  const [subscriptions, plans] = await Promise.all([
    countCustomerSubscriptions(db, accountId, customerId, LIVE_SUBSCRIPTION_STATUSES),
    countCustomerPlans(db, accountId, customerId, LIVE_PLAN_STATUSES),
  ]);
  if (subscriptions > 0 || plans > 0) {
    throw conflict(
      `Customer ${customerId} still has ${subscriptions} subscription(s) and ${plans} payment plan(s) running; cancel them before deleting the customer.`,
      'customer_has_active_billing',
    );
  }
  // An open invoice is money owed: the merchant collects it or voids it; deleting the customer does neither.
  const open = await countCustomerInvoices(db, accountId, customerId, 'open');
  if (open > 0) throw openInvoiceConflict(customerId, open);
}

function openInvoiceConflict(customerId: string, open: number) {
  return conflict(
    `Customer ${customerId} has ${open} open invoice(s); collect or void them before deleting the customer.`,
    'customer_has_open_invoices',
  );
}

/**
 * DELETE /customers/{id}: refused while the customer is billed; its drafts voided, its payment methods
 * detached (spent: decisions.md §5), then the customer hidden (markCustomerDeleted), in one transaction.
 * Methods a processor keeps are detached there first, as POST /payment-methods/{id}/detach does: a processor
 * that does not answer is a 502 and nothing changes here.
 */
export async function deleteCustomer(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'customer'; deleted: true }> {
  // Checked before the processor is asked, so that a refused deletion detaches nothing there; checked again below.
  await refuseWhileBilled(prisma, accountId, id);
  await detachCustomerMethodsAtProcessor(prisma, gateways, accountId, id);
  return prisma.$transaction(async (tx) => {
    // First the row lock: invoices and payment methods being made for the customer are committed before
    // the checks below read them, and those that come after find no customer (lockCustomer).
    const current = await lockCustomer(tx, accountId, id, 'update');
    await refuseWhileBilled(tx, accountId, id);
    // Nothing of a deleted customer stays payable or chargeable: drafts are voided, its cards detached.
    const drafts = await readCustomerDraftIds(tx, accountId, id);
    // A draft finalized meanwhile (its finalization held the invoice's lock) is open: refused as above.
    for (const draft of drafts) await voidInTx(tx, accountId, draft.id, { onlyDraft: openInvoiceConflict(id, 1) });
    await detachAllInTx(tx, accountId, id);
    return markCustomerDeleted(tx, accountId, current.id);
  });
}
