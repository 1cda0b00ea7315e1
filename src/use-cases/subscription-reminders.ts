import type { Db } from '../db/prisma';
import { readAccountProfile } from '../accounts';
import type { ReminderDetails } from '../emails';
import type { ReminderEmailKind } from '../emails';
import { queueReminderEmail, wantedReminderDays } from '../emails';
import { previewInvoiceForBilling } from '../invoices';
import { atTime } from '../lib/clock-time';
import { periodInvoice } from '../subscriptions';
import { periodToBill, type SubscriptionState } from '../subscriptions';

/** The days before each moment its reminder goes (null: none), as the account's settings say now (docs/decisions.md §31). */
export async function reminderDays(prisma: Db, accountId: string): Promise<Record<ReminderEmailKind, number | null>> {
  return wantedReminderDays(await readAccountProfile(prisma, accountId));
}

/**
 * A subscription's reminder of its next invoice (the renewal, or the first one when its trial ends),
 * queued once (docs/decisions.md §31): what it states is the invoice the billing code would make at
 * that moment, on the workflow's state, as GET /invoices/upcoming answers it (nothing is written).
 * Null when none is sent (switched off, days unset by now, no customer email).
 */
export async function queueSubscriptionReminder(
  prisma: Db,
  input: { state: SubscriptionState; kind: ReminderEmailKind; dueAt: number },
): Promise<string | null> {
  const { state, kind, dueAt } = input;
  return queueReminderEmail(prisma, {
    accountId: state.accountId,
    subscriptionId: state.id,
    customerId: state.customerId,
    kind,
    details: async (): Promise<ReminderDetails> => {
      const invoice = await atTime(dueAt, async () =>
        previewInvoiceForBilling(
          prisma,
          state.accountId,
          await periodInvoice(prisma, periodToBill(state, state.nextPeriodIndex), { discountWithDraft: true }),
        ),
      );
      return {
        at: Math.floor(dueAt / 1000),
        currency: invoice.currency,
        collection_method: state.collectionMethod,
        lines: invoice.lines.map((line) => ({
          description: line.description ?? '',
          quantity: line.quantity ?? 1,
          amount: line.amount,
        })),
        subtotal: invoice.subtotal,
        tax: invoice.tax,
        total: invoice.total,
      };
    },
  });
}
