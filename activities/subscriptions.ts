import { ApplicationFailure } from '@temporalio/common';
import { isRefusal, type ApiError } from '../src/http/errors';
import { chargeFailure } from '../src/payments';
import type { Db } from '../src/db/prisma';
import type { Gateways } from '../src/payments';
import {
  chargeRenewalInvoice,
  createRenewalInvoice,
  finalizeRenewalInvoice,
  invoiceProrationsNow,
  invoiceThresholdUsage,
  priceUnitAmounts,
  settleCreatedInvoice,
  type ImmediateInvoiceInput,
  type ImmediateInvoiceResult,
  type ThresholdInvoiceInput,
  type ThresholdInvoiceResult,
  type RenewalInvoice,
  type RenewalChargeInput,
  type RenewalChargeResult,
  type RenewalInvoiceInput,
  type RenewalPeriod,
  type FinalizedRenewal,
} from '../src/subscriptions';
import { RENEWAL_REJECTED, rejectionFailure, type RejectionKind } from '../src/subscriptions';
import { persistSubscription, type PersistSubscriptionInput } from '../src/subscriptions';
import type { SubscriptionObject } from '../src/subscriptions';
import { atTime, type ClockTimed } from '../src/lib/clock-time';
import type { CollectionMethod } from '../src/subscriptions';
import { findInvoice } from '../src/invoices';
import { assertItemsWithinCeiling, assertPeriodInvoiceWithinCeiling, type ItemWithParam } from '../src/subscriptions';
import { capUnusedTimeCredits, type UnusedTimeCapInput } from '../src/subscriptions';
import type { ProrationLine } from '../src/subscriptions';

/** A service's refusal as the workflow carries it: what is named and missing, a conflict, or bad input. */
function rejectionKindOf(error: ApiError): RejectionKind {
  return error.type === 'not_found' ? 'not_found' : error.type === 'conflict' ? 'conflict' : 'invalid';
}

export type { PersistSubscriptionInput, SubscriptionEventType } from '../src/subscriptions';
export type { RenewalChargeInput, RenewalChargeResult, RenewalInvoiceInput, RenewalPeriod } from '../src/subscriptions';

/**
 * The subscription workflow's activities: each calls one service function (src/subscriptions/) and
 * turns a client error, which a retry cannot fix, into a non-retryable failure the workflow reads.
 */
export function createSubscriptionActivities({ prisma, gateways }: { prisma: Db; gateways: Gateways }) {
  /** Runs `work`; a client error (a refusal a retry cannot change) becomes the rejection the API answers. */
  async function refusing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isRefusal(error))
        throw rejectionFailure({
          kind: rejectionKindOf(error),
          code: error.code,
          message: error.message,
          param: error.param,
        });
      throw error;
    }
  }

  return {
    async persistSubscription(input: PersistSubscriptionInput & ClockTimed): Promise<SubscriptionObject> {
      return refusing(() => atTime(input.clockTime, () => persistSubscription(prisma, input)));
    },

    /** A change of items, checked under the workflow's lock against what the subscription holds then (period-ceiling.ts). */
    async checkItemsWithinCeiling(input: { accountId: string; items: ItemWithParam[] }): Promise<void> {
      return refusing(() => assertItemsWithinCeiling(prisma, input.accountId, input.items));
    },

    /** The next period's invoice, with the proration lines a change leaves waiting, checked under the workflow's lock (period-ceiling.ts). */
    async checkPeriodInvoiceWithinCeiling(input: RenewalInvoiceInput): Promise<void> {
      return refusing(() => assertPeriodInvoiceWithinCeiling(prisma, input));
    },

    /** An invoice's status as the database has it: the workflow ends dunning for one paid or voided outside it. */
    async invoiceStatus(input: { accountId: string; invoiceId: string }): Promise<{ status: string }> {
      return { status: (await findInvoice(prisma, input.accountId, input.invoiceId)).status };
    },

    /** The prices' unit amounts a change prorates with (docs/decisions.md §25), read under the workflow's lock. */
    async prorationPrices(input: { accountId: string; priceIds: string[] }): Promise<Record<string, number>> {
      return refusing(() => priceUnitAmounts(prisma, input.accountId, input.priceIds));
    },

    /** A change's credits for unused time capped at what its period still holds (docs/decisions.md §25), read under the workflow's lock. */
    async capUnusedTime(input: UnusedTimeCapInput): Promise<ProrationLine[]> {
      return refusing(() => capUnusedTimeCredits(prisma, input));
    },

    /** always_invoice: the change's proration lines invoiced and charged now, once (period-billing.ts). */
    async invoiceProrationsNow(input: ImmediateInvoiceInput & ClockTimed): Promise<ImmediateInvoiceResult> {
      return refusing(() => atTime(input.clockTime, () => invoiceProrationsNow(prisma, gateways, input)));
    },

    /** A billing threshold: the usage to date invoiced and charged now when it reaches it, once (period-billing.ts). */
    async invoiceThresholdUsage(input: ThresholdInvoiceInput & ClockTimed): Promise<ThresholdInvoiceResult> {
      return refusing(() => atTime(input.clockTime, () => invoiceThresholdUsage(prisma, gateways, input)));
    },

    async createRenewalInvoice(input: RenewalInvoiceInput & ClockTimed): Promise<RenewalInvoice> {
      try {
        return await atTime(input.clockTime, () => createRenewalInvoice(prisma, input));
      } catch (error) {
        if (isRefusal(error))
          throw ApplicationFailure.nonRetryable(error.message, RENEWAL_REJECTED, {
            code: error.code,
            param: error.param,
          });
        throw error;
      }
    },

    async finalizeRenewalInvoice(input: RenewalPeriod & { invoiceId: string } & ClockTimed): Promise<FinalizedRenewal> {
      return atTime(input.clockTime, () => finalizeRenewalInvoice(prisma, input));
    },

    /** A failed attempt fails the activity (CHARGE_FAILED) with its result, so the Web UI draws it failed. */
    async chargeRenewalInvoice(input: RenewalChargeInput & ClockTimed): Promise<RenewalChargeResult> {
      const result = await atTime(input.clockTime, () => chargeRenewalInvoice(prisma, gateways, input));
      if (result.outcome !== 'failed') return result;
      throw chargeFailure(`charge attempt ${input.attempt}`, result.failureCode, result);
    },

    async settleCreatedInvoice(
      input: RenewalChargeInput & { collectionMethod: CollectionMethod } & ClockTimed,
    ): Promise<FinalizedRenewal & { apiAttempt: RenewalChargeResult | null }> {
      return atTime(input.clockTime, () => settleCreatedInvoice(prisma, gateways, input));
    },
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
