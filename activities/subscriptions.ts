import { ApplicationFailure } from '@temporalio/common';
import type { Db, Tx } from '../src/db/prisma';
import { findPricesForUse } from '../src/catalog/price.service';
import { ApiError } from '../src/http/errors';
import { recordEvent } from '../src/lib/events';
import { createInvoice, finalizeInvoice } from '../src/invoices/invoice.service';
import { payInvoice } from '../src/invoices/invoice-payment.service';
import { findInvoice, toInvoiceObject } from '../src/invoices/invoice.records';
import type { InvoiceObject } from '../src/invoices/invoice.schemas';
import type { PaymentGateway } from '../src/payments/gateway';
import { createGateway } from '../src/payments/simulated-gateway';
import { getDunningSettings } from '../src/subscriptions/dunning-settings.service';
import type {
  ChangeCause,
  CollectionMethod,
  DunningOutcome,
  SubscriptionItemState,
  SubscriptionState,
} from '../src/subscriptions/subscription-machine';
import { RENEWAL_REJECTED, rejectionFailure } from '../src/subscriptions/subscription-rejection';
import { getSubscriptionObject, subscriptionEventData } from '../src/subscriptions/subscription.records';
import type { SubscriptionObject } from '../src/subscriptions/subscription.schemas';

/** send_invoice renewals are due this many days after their period starts. */
export const SEND_INVOICE_DUE_DAYS = 30;

export type SubscriptionEventType =
  | 'subscription.created'
  | 'subscription.updated'
  | 'subscription.canceled'
  | 'subscription.paused'
  | 'subscription.resumed';

export interface PersistSubscriptionInput {
  state: SubscriptionState;
  event: { type: SubscriptionEventType; cause?: ChangeCause } | null;
}

export interface RenewalPeriod {
  accountId: string;
  subscriptionId: string;
  /** Workflow time (ms) of the period's start: with the subscription, the renewal's identity. */
  periodStart: number;
}

export interface RenewalInvoiceInput extends RenewalPeriod {
  customerId: string;
  currency: string;
  collectionMethod: CollectionMethod;
  billingReason: 'subscription_create' | 'subscription_cycle';
  periodEnd: number;
  items: SubscriptionItemState[];
}

export interface RenewalChargeInput extends RenewalPeriod {
  invoiceId: string;
  /** 1 for the renewal charge, then 2, 3... for dunning retries. */
  attempt: number;
  paymentMethodId: string | null;
}

export type RenewalChargeResult =
  | { outcome: 'paid' | 'void' }
  | { outcome: 'failed'; failureCode: string | null; retryDays: number[]; dunningOutcome: DunningOutcome };

const seconds = (ms: number) => Math.floor(ms / 1000);

/** Idempotency key of a period's invoice: a retried or replayed renewal finds the invoice it made. */
export function renewalInvoiceKey(subscriptionId: string, periodStartMs: number): string {
  return `subscription:${subscriptionId}:period:${seconds(periodStartMs)}`;
}

/** The caller's key of one charge attempt; the invoice module derives the gateway key from it and the invoice id. */
export function renewalAttemptKey(subscriptionId: string, periodStartMs: number, attempt: number): string {
  return `${renewalInvoiceKey(subscriptionId, periodStartMs)}:attempt:${attempt}`;
}

const clientError = (error: unknown): error is ApiError => error instanceof ApiError && error.status < 500;

function rowColumns(state: SubscriptionState) {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    status: state.status,
    collectionMethod: state.collectionMethod,
    currency: state.currency,
    interval: state.interval,
    intervalCount: state.intervalCount,
    billingCycleAnchor: new Date(state.anchor),
    startDate: new Date(state.startDate),
    startBillingDate: at(state.startBillingDate),
    endDate: at(state.endDate),
    trialStart: at(state.trialStart),
    trialEnd: at(state.trialEnd),
    currentPeriodStart: at(state.currentPeriodStart),
    currentPeriodEnd: at(state.currentPeriodEnd),
    cancelAt: at(state.cancelAt),
    cancelAtPeriodEnd: state.cancelAtPeriodEnd,
    canceledAt: at(state.canceledAt),
    endedAt: at(state.endedAt),
    pausedAt: at(state.pausedAt),
    latestInvoiceId: state.latestInvoiceId,
    defaultPaymentMethodId: state.defaultPaymentMethodId,
    workflowVersion: state.version,
  };
}

/** Locks (FOR SHARE) prices the subscription starts to use, so a concurrent DELETE /prices cannot remove them; 404 names the item. */
async function lockNewPrices(tx: Tx, state: SubscriptionState, knownPriceIds: Set<string>): Promise<void> {
  for (const [index, item] of state.items.entries()) {
    if (knownPriceIds.has(item.priceId)) continue;
    try {
      await findPricesForUse(tx, state.accountId, [item.priceId]);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new ApiError('not_found', error.code, error.message, `items.${index}.price`);
      throw error;
    }
  }
}

export function createSubscriptionActivities({ prisma, gateway = createGateway(prisma) }: { prisma: Db; gateway?: PaymentGateway }) {
  async function renewalFailedWithoutCharge(input: RenewalChargeInput, code: string): Promise<void> {
    // No charge could even be attempted (no usable payment method): still a failed attempt, with its event, once.
    await prisma.$transaction(async (tx) => {
      const key = { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart) };
      await tx.$queryRaw`SELECT 1 FROM subscription_renewals WHERE subscription_id = ${input.subscriptionId} AND period_start = ${key.periodStart} FOR UPDATE`;
      const renewal = await tx.subscriptionRenewal.findUnique({ where: { subscriptionId_periodStart: key } });
      if (renewal && renewal.attemptCount >= input.attempt) return;
      await tx.subscriptionRenewal.update({
        where: { subscriptionId_periodStart: key },
        data: { status: 'payment_failed', attemptCount: input.attempt, lastFailureCode: code },
      });
      await recordEvent(tx, input.accountId, 'invoice.payment_failed', toInvoiceObject(await findInvoice(tx, input.accountId, input.invoiceId)));
    });
  }

  async function recordOutcome(input: RenewalChargeInput, status: string, failureCode: string | null): Promise<void> {
    await prisma.subscriptionRenewal.updateMany({
      where: { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart), attemptCount: { lte: input.attempt } },
      data: { status, attemptCount: input.attempt, lastFailureCode: failureCode },
    });
  }

  return {
    /**
     * Writes the workflow's state to its projection (the subscriptions row and its items) and the
     * event of the change, in one transaction. A write whose version the row already has is a
     * retry: it changes nothing and answers the row, so events are written once.
     */
    async persistSubscription({ state, event }: PersistSubscriptionInput): Promise<SubscriptionObject> {
      try {
        return await prisma.$transaction(async (tx) => {
          const [current] = await tx.$queryRaw<{ workflow_version: number }[]>`
            SELECT workflow_version FROM subscriptions WHERE id = ${state.id} FOR UPDATE`;
          if (current && current.workflow_version >= state.version) return getSubscriptionObject(tx, state.accountId, state.id);
          const existingItems = current ? await tx.subscriptionItem.findMany({ where: { subscriptionId: state.id } }) : [];
          await lockNewPrices(tx, state, new Set(existingItems.map((item) => item.priceId)));
          if (current) {
            await tx.subscription.update({ where: { id: state.id }, data: rowColumns(state) });
          } else {
            await tx.subscription.create({
              data: { id: state.id, accountId: state.accountId, customerId: state.customerId, createdAt: new Date(state.createdAt), ...rowColumns(state) },
            });
          }
          await tx.subscriptionItem.deleteMany({ where: { subscriptionId: state.id, id: { notIn: state.items.map((item) => item.id) } } });
          for (const [position, item] of state.items.entries()) {
            const columns = { priceId: item.priceId, quantity: item.quantity, position, taxRateIds: item.taxRateIds };
            await tx.subscriptionItem.upsert({
              where: { id: item.id },
              create: { id: item.id, accountId: state.accountId, subscriptionId: state.id, ...columns },
              update: columns,
            });
          }
          const object = await getSubscriptionObject(tx, state.accountId, state.id);
          if (event) await recordEvent(tx, state.accountId, event.type, subscriptionEventData(object, event.cause));
          return object;
        });
      } catch (error) {
        if (clientError(error)) {
          throw rejectionFailure({ status: error.status as 400 | 404 | 409, code: error.code, message: error.message, param: error.param });
        }
        throw error;
      }
    },

    /** The period's draft invoice (invoice.created), made once per period whatever the retries. */
    async createRenewalInvoice(input: RenewalInvoiceInput): Promise<{ invoiceId: string }> {
      // A tax rate deactivated since the item was set no longer applies to new invoices.
      const taxRateIds = [...new Set(input.items.flatMap((item) => item.taxRateIds))];
      const active = new Set(
        (await prisma.taxRate.findMany({ where: { accountId: input.accountId, id: { in: taxRateIds }, active: true }, select: { id: true } })).map(
          (rate) => rate.id,
        ),
      );
      let invoice: InvoiceObject;
      try {
        invoice = await createInvoice(
          prisma,
          input.accountId,
          {
            customer: input.customerId,
            currency: input.currency,
            collection_method: input.collectionMethod,
            due_date: input.collectionMethod === 'send_invoice' ? seconds(input.periodStart) + SEND_INVOICE_DUE_DAYS * 86_400 : undefined,
            lines: input.items.map((item) => ({ price: item.priceId, quantity: item.quantity, tax: item.taxRateIds.filter((id) => active.has(id)) })),
          },
          {
            subscriptionId: input.subscriptionId,
            billingReason: input.billingReason,
            periodStart: seconds(input.periodStart),
            periodEnd: seconds(input.periodEnd),
            idempotencyKey: renewalInvoiceKey(input.subscriptionId, input.periodStart),
          },
        );
      } catch (error) {
        if (clientError(error)) throw ApplicationFailure.nonRetryable(error.message, RENEWAL_REJECTED, { code: error.code, param: error.param });
        throw error;
      }
      await prisma.subscriptionRenewal.upsert({
        where: { subscriptionId_periodStart: { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart) } },
        create: {
          subscriptionId: input.subscriptionId,
          periodStart: new Date(input.periodStart),
          accountId: input.accountId,
          periodEnd: new Date(input.periodEnd),
          invoiceId: invoice.id,
          status: 'invoiced',
        },
        update: {},
      });
      return { invoiceId: invoice.id };
    },

    /** draft -> open (invoice.finalized; invoice.sent for send_invoice). Answers the status; a voided invoice is `void`. */
    async finalizeRenewalInvoice(input: RenewalPeriod & { invoiceId: string }): Promise<{ status: 'open' | 'paid' | 'void' }> {
      let invoice: InvoiceObject;
      try {
        invoice = await finalizeInvoice(prisma, input.accountId, input.invoiceId, { allowFinalized: true });
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 409)) throw error;
        await prisma.subscriptionRenewal.updateMany({ where: { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart) }, data: { status: 'void' } });
        return { status: 'void' };
      }
      if (invoice.collection_method === 'send_invoice') {
        await prisma.subscriptionRenewal.updateMany({
          where: { subscriptionId: input.subscriptionId, periodStart: new Date(input.periodStart), status: 'invoiced' },
          data: { status: 'sent' },
        });
      }
      return { status: invoice.status as 'open' | 'paid' };
    },

    /**
     * One charge attempt of a renewal invoice (invoice.payment_succeeded or invoice.payment_failed).
     * The attempt key (subscription, period, attempt number) makes a retried or crashed activity
     * finish the same attempt instead of charging again. A failure answers the account's dunning settings.
     */
    async chargeRenewalInvoice(input: RenewalChargeInput): Promise<RenewalChargeResult> {
      const attemptKey = renewalAttemptKey(input.subscriptionId, input.periodStart, input.attempt);
      let failureCode: string | null;
      try {
        const invoice = await payInvoice(prisma, gateway, input.accountId, input.invoiceId, {
          paymentMethodId: input.paymentMethodId ?? undefined,
          attemptKey,
        });
        if (invoice.status === 'paid') {
          await recordOutcome(input, 'paid', null);
          return { outcome: 'paid' };
        }
        const attempt = await prisma.transaction.findFirst({ where: { accountId: input.accountId, invoiceId: input.invoiceId, attemptKey } });
        failureCode = attempt?.failureCode ?? null;
        await recordOutcome(input, 'payment_failed', failureCode);
      } catch (error) {
        if (!clientError(error)) throw error;
        if (error.code === 'invoice_already_paid') {
          await recordOutcome(input, 'paid', null);
          return { outcome: 'paid' };
        }
        if (error.code === 'invoice_void') {
          await recordOutcome(input, 'void', null);
          return { outcome: 'void' };
        }
        failureCode = error.code;
        await renewalFailedWithoutCharge(input, error.code);
      }
      const settings = await getDunningSettings(prisma, input.accountId);
      return { outcome: 'failed', failureCode, retryDays: settings.retry_days, dunningOutcome: settings.outcome };
    },
  };
}

export type SubscriptionActivities = ReturnType<typeof createSubscriptionActivities>;
