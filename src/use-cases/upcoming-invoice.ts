import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { ApiError, badRequest, conflict } from '../http/errors';
import { previewInvoiceForBilling, withParam } from '../invoices';
import { atTime, currentTime } from '../lib/clock-time';
import { toUnixSeconds } from '../lib/time';
import { immediateInvoice, periodInvoice, priceUnitAmounts } from '../subscriptions';
import { prorationLines, prorationPeriod } from '../subscriptions';
import { accountProrationBehavior } from '../subscriptions';
import { capUnusedTimeCredits } from '../subscriptions';
import {
  keepChangedUsage,
  nextPeriodBilling,
  periodToBill,
  SubscriptionRuleError,
  update,
  type SubscriptionState,
} from '../subscriptions';
import { itemChanges, liveSubscription } from '../subscriptions';
import { lastKnownSubscriptionState, readSubscriptionState, sameHistory } from '../subscriptions';
import type { UpcomingInvoiceObject, UpcomingInvoiceQuery } from './upcoming-invoice.schemas';

const RULE_ERROR_TYPES = { conflict: 'conflict', invalid: 'invalid_request_error' } as const;

/** A rule of the state machine refusing the proposed change: the answer PATCH would give. */
function asApiError(error: unknown): never {
  if (error instanceof SubscriptionRuleError)
    throw new ApiError(RULE_ERROR_TYPES[error.kind], error.code, error.message, error.param);
  throw error;
}

const noUpcoming = (id: string, why: string) =>
  conflict(`Subscription ${id} has no upcoming invoice: ${why}.`, 'no_upcoming_invoice');

/**
 * GET /invoices/upcoming (docs/api.md, "Proration"): the subscription's next invoice exactly as it will
 * be billed, made by the billing code itself on the workflow's state (pending proration lines included)
 * without a transaction: nothing is written and nothing locked (previewInvoiceForBilling). With a proposed change (`items`), the change is
 * applied to that state at `proration_date` and prorated as PATCH would: with `always_invoice` the
 * answer is the invoice the change would charge at once.
 */
export async function upcomingInvoice(
  deps: { prisma: Db; temporal: Client },
  accountId: string,
  query: UpcomingInvoiceQuery,
): Promise<UpcomingInvoiceObject> {
  const { prisma } = deps;
  // The workflow's state is asked for beside the row's read, and used only once the row has shown the subscription
  // is this account's and live: another account's id answers 404 as before (docs/performance.md, "The upcoming
  // invoice's fixed costs"). Should the row refuse, the state's answer or failure is dropped.
  const stateRead = readSubscriptionState(deps, query.subscription);
  stateRead.catch(() => undefined);
  const last = query.items ? undefined : lastKnownSubscriptionState(query.subscription);
  const row = await withParam('subscription', () => liveSubscription(prisma, accountId, query.subscription));
  const preview = (at: number, work: () => Promise<Parameters<typeof previewInvoiceForBilling>[2]>) =>
    atTime(at, async () => {
      const invoice = await previewInvoiceForBilling(prisma, accountId, await work());
      return { ...invoice, id: null, number: null };
    });
  const nextPeriodPreview = (state: SubscriptionState) => {
    const billing = nextPeriodBilling(state);
    if ('none' in billing) throw noUpcoming(row.id, billing.none);
    // The period's discount read with the draft's inputs, as the renewal reads it (one statement fewer).
    return preview(billing.at, () =>
      periodInvoice(prisma, periodToBill(state, state.nextPeriodIndex), { discountWithDraft: true }),
    );
  };
  // Made on the state this process last had while the history is described, and kept only when the history has not
  // moved since: then it is the invoice of the state the describe vouches for (docs/decisions.md §25). It writes
  // nothing, so one made on a stale state is dropped (its failure too) and the invoice is made again.
  const early = last && Promise.resolve().then(() => nextPeriodPreview(last.state));
  early?.catch(() => undefined);
  const { state, mark } = await stateRead;
  if (early && last && mark && sameHistory(mark, last.mark)) {
    const made = await early.then(
      (invoice) => ({ invoice }),
      () => undefined,
    );
    if (made) return made.invoice;
  }
  const nowMs = Math.floor((row.clockTime ?? currentTime().getTime()) / 1000) * 1000;

  let next: SubscriptionState = state;
  if (query.items) {
    const at = query.proration_date === undefined ? nowMs : query.proration_date * 1000;
    const changes = await itemChanges(prisma, row, query.items);
    try {
      next = update(state, { items: changes }, at);
    } catch (error) {
      asApiError(error);
    }
    // The usage of metered items the change removes or moves is kept as the workflow keeps it (docs/decisions.md §43).
    next = keepChangedUsage(state, next, at) ?? next;
    const behavior = query.proration_behavior ?? (await accountProrationBehavior(prisma, accountId));
    const period = prorationPeriod(state, at);
    if (query.proration_date !== undefined && !period)
      throw badRequest(
        `proration_date must fall inside the subscription's current billed period (${toUnixSeconds(new Date(state.currentPeriodStart ?? 0))} to ${toUnixSeconds(new Date(state.currentPeriodEnd ?? 0))}).`,
        'proration_date',
      );
    if (behavior !== 'none' && period) {
      const priceIds = [...new Set([...state.items, ...next.items].map((item) => item.priceId))];
      // Credits capped as the workflow caps them at the change (docs/decisions.md §25).
      const lines = await capUnusedTimeCredits(prisma, {
        accountId,
        subscriptionId: state.id,
        period,
        pendingLines: state.pendingLines,
        lines: prorationLines(state.items, next.items, await priceUnitAmounts(prisma, accountId, priceIds), period, at),
      });
      const pending = [...(state.pendingLines ?? []), ...lines];
      if (behavior === 'always_invoice' && lines.length > 0) {
        return preview(at, () =>
          immediateInvoice(prisma, {
            accountId,
            subscriptionId: next.id,
            customerId: next.customerId,
            currency: next.currency,
            collectionMethod: next.collectionMethod,
            paymentMethodId: next.defaultPaymentMethodId,
            lines: pending,
            at,
            version: next.version,
          }),
        );
      }
      next = { ...next, pendingLines: pending };
    }
  }
  return nextPeriodPreview(next);
}
