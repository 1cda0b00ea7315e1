import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { lockCustomer } from '../customers';
import { withParam } from '../invoices';
import { logger } from '../http/logger';
import { atTime } from '../lib/clock-time';
import { newUuid } from '../lib/ids';
import type { AnyTx } from '../db/sql';
import { runTransaction, sqlTransaction } from '../db/sql-transaction';
import type { Gateways, OpenedEntry } from '../payments';
import { recordWorkflowStart, startRecordedWorkflow, type WorkflowStart } from '../temporal';
import type { TestClockBinding } from '../../workflows/test-clock-contract';
import type { SubscriptionCreated } from '../../workflows/subscription-messages';
import {
  billPeriod,
  chargeRenewalInvoice,
  type InvoicedPeriod,
  type RenewalChargeInput,
  type RenewalChargeOptions,
  type RenewalChargeResult,
} from './period-billing';
import { invoicePaymentReceipt } from '../transactions';
import {
  initialState,
  newVersion,
  nextAction,
  periodBilled,
  periodInvoiced,
  type SubscriptionCreateSpec,
  type SubscriptionState,
} from './subscription-machine';
import {
  insertSubscription,
  insertInvoicedSubscriptionInTx,
  persistSubscriptionEventInTx,
  projectColumnsInTx,
  getSubscriptionObject,
  recordFirstPeriodBilled,
} from './subscription-projection.service';
import type { PriceObject } from '../catalog';
import { readPrices } from '../catalog';
import { readInvoiceStatus } from '../invoices';
import {
  readSubscriptionCollection,
  setCreatedEventInvoice,
  subscriptionVersionRow,
  toSubscriptionObject,
  type SubscriptionWithItems,
} from './subscription.records';
import { isDatabaseBusy, isDatabaseUnavailable } from '../db/availability';
import type { SubscriptionObject } from './subscription.schemas';
import { subscriptionWorkflowStart, type SubscriptionStartExtras } from './subscription-workflow.client';
import { withoutSettlementNotice } from '../invoices';
import { redeemCoupon } from '../coupons';

/**
 * POST /subscriptions after its checks (decisions.md §14): one transaction writes the subscription
 * (version 1, subscription.created), a first invoice due at once (billPeriod: created and finalized,
 * as the workflow's bill step would) and the start of its workflow (workflow_starts). A first invoice charged
 * automatically is then charged here, with the attempt key the workflow's own first attempt uses, so
 * the two never charge twice. Paid, the first period is recorded billed here as well, and the workflow
 * starts from that state with nothing to do until the next period; otherwise (declined, slower than
 * the creation wait, or this process died first) the workflow's first task settles the period from
 * what it finds.
 */

/** How long the creation answer waits for the first charge before answering 202 (billing pending). */
export const CREATION_WAIT_MS = 20_000;

export interface CreationDeps {
  prisma: Db;
  temporal: Client;
  taskQueue: string;
  gateways: Gateways;
  /** The workflow service's time (AppDeps.temporalNow): the wall clock unless given. */
  temporalNow?: () => Promise<number>;
}

interface FirstInvoice {
  billing: InvoicedPeriod;
  /** The row as the creation inserted it (version 1), when it did in one statement. */
  written: SubscriptionWithItems | null;
}

/**
 * The first period, billed in the creation's transaction (billPeriod: the workflow's bill(0) finds it
 * done), with the row moved to the period invoiced (version 2) and the workflow's start recorded.
 * `inserted`: subscription.created, which then names the invoice, whichever path wrote it, and the row
 * when insertInvoicedSubscriptionInTx wrote it (the paid period is then recorded in one statement).
 */
async function billFirstPeriod(
  tx: AnyTx,
  taskQueue: string,
  initial: SubscriptionState,
  inserted: FirstPeriodRow,
  {
    testClock,
    started,
    prices,
  }: { testClock: TestClockBinding | null; started: SubscriptionStartExtras; prices: Map<string, PriceObject> },
): Promise<WrittenSubscription> {
  const billing = await billPeriod(
    tx,
    initial,
    0,
    async (invoiced, invoiceId) => {
      // Written with the row already (insertInvoicedSubscriptionInTx): its event names the invoice, its start is recorded.
      if (inserted.start) return inserted.start;
      if (inserted.eventId) await setCreatedEventInvoice(tx, initial.accountId, inserted.eventId, invoiceId);
      await projectColumnsInTx(tx, invoiced);
      const start = subscriptionWorkflowStart(taskQueue, invoiced, testClock, started);
      await recordWorkflowStart(tx, start);
      return start;
    },
    inserted.invoiceId,
  );
  const first = { billing, written: inserted.row };
  // What the transaction commits, for an answer when PostgreSQL goes away before it can be read back.
  const committed = inserted.row
    ? toSubscriptionObject({ ...inserted.row, ...subscriptionVersionRow(billing.state) }, prices)
    : await getSubscriptionObject(tx, initial.accountId, initial.id);
  return { state: billing.state, start: billing.alongside, first, object: null, committed };
}

/**
 * The row billFirstPeriod bills: inserted already invoiced, with its first invoice's id and its workflow's start
 * (`start`), or inserted at version 1 (`eventId`: its subscription.created, to name the invoice) or by Prisma's path
 * (`row` null).
 */
type FirstPeriodRow =
  | { row: SubscriptionWithItems; invoiceId: string; start: WorkflowStart; eventId?: undefined }
  | { row: null; eventId: string | null; invoiceId?: undefined; start?: undefined };

interface WrittenSubscription {
  state: SubscriptionState;
  start: WorkflowStart;
  first: FirstInvoice | null;
  object: SubscriptionObject | null;
  /** The subscription as its transaction committed it. */
  committed: SubscriptionObject;
}

async function writeSubscription(
  deps: CreationDeps,
  spec: SubscriptionCreateSpec,
  nowMs: number,
  testClock: TestClockBinding | null,
  started: SubscriptionStartExtras,
  prices: PriceObject[],
  couponId: string | undefined,
): Promise<WrittenSubscription> {
  const initial = newVersion(initialState(spec, nowMs));
  const due = nextAction(initial);
  const billsNow = due?.kind === 'bill' && due.index === 0 && due.at <= nowMs;
  // A coupon takes Prisma's path: it is redeemed after the row is written and before the first invoice is made (docs/decisions.md §37).
  if (!billsNow && !couponId) {
    // Nothing billed now: one statement, unless a price changed since the checks read it.
    const start = subscriptionWorkflowStart(deps.taskQueue, initial, testClock, started);
    const object = await insertSubscription(deps.prisma, initial, prices, start);
    if (object) return { state: initial, start, first: null, object, committed: object };
  }
  const firstPeriod = (tx: AnyTx, inserted: FirstPeriodRow) =>
    billFirstPeriod(tx, deps.taskQueue, initial, inserted, {
      testClock,
      started,
      prices: new Map(prices.map((price) => [price.id, price])),
    });
  // Billed now: the row inserted in one statement on the hot path's transaction. A price changed since
  // the checks (nothing inserted) or nothing billed now: Prisma's path, whose persistSubscriptionEventInTx judges it.
  const written =
    (billsNow && !couponId
      ? await sqlTransaction(deps.prisma, async (tx) => {
          // The row written invoiced at once, its first invoice's id named before that invoice is made.
          const invoiceId = newUuid();
          const invoiced = periodInvoiced(initial, 0, invoiceId);
          const start = subscriptionWorkflowStart(deps.taskQueue, invoiced, testClock, started);
          const inserted = await insertInvoicedSubscriptionInTx(tx, initial, invoiced, prices, start);
          return inserted ? firstPeriod(tx, { row: inserted.row, invoiceId, start }) : null;
        })
      : null) ??
    (await runTransaction(deps.prisma, async (tx) => {
      // The customer deleted since the checks read it (the statements above wrote nothing): 404 naming it.
      await withParam('customer', () => lockCustomer(tx, initial.accountId, initial.customerId, 'share'));
      const persisted = await persistSubscriptionEventInTx(tx, {
        state: initial,
        event: { type: 'subscription.created' },
      });
      let created = persisted.object;
      if (couponId) {
        const discount = await redeemCoupon(tx, initial.accountId, couponId, {
          customerId: initial.customerId,
          subscriptionId: initial.id,
          currency: initial.currency,
        });
        created = { ...created, discount };
      }
      if (billsNow) return firstPeriod(tx, { row: null, eventId: persisted.eventId });
      const start = subscriptionWorkflowStart(deps.taskQueue, initial, testClock, started);
      await recordWorkflowStart(tx, start);
      return { state: initial, start, first: null, object: created, committed: created };
    }));
  // Not charged here (sent, or nothing due): the answer is the row as committed.
  const uncharged = written.first && !written.first.billing.charge;
  return uncharged ? { ...written, object: (await readBack(deps, written)).object } : written;
}

/**
 * The subscription read back after its commit, or, when PostgreSQL does not answer by then, as its
 * transaction committed it (`readBack: false`). Once the creation has committed, its answer says what
 * was done: a 503 says nothing was, and a client retrying on it without an Idempotency-Key would create
 * (and charge) a second subscription (docs/api.md, "Dependencies down").
 */
async function readBack(
  deps: CreationDeps,
  written: WrittenSubscription,
): Promise<{ object: SubscriptionObject; readBack: boolean }> {
  try {
    return {
      object: await getSubscriptionObject(deps.prisma, written.state.accountId, written.state.id),
      readBack: true,
    };
  } catch (error) {
    if (!isDatabaseUnavailable(error) && !isDatabaseBusy(error)) throw error;
    logger.warn(
      { err: error, subscriptionId: written.state.id },
      'subscription created but not read back; answered as committed',
    );
    return { object: written.committed, readBack: false };
  }
}

/**
 * The first charge, bounded by the creation wait: null when it was still running then (it goes on,
 * and the workflow finishes it if this process dies) or failed here (the workflow's attempt 1 does it).
 * `whenPaid` runs in the transaction settling a success unless the wait is over by then; once it has begun,
 * the answer waits for that transaction (a paid period is recorded and started from, or not at all).
 */
async function chargeWithin(
  deps: CreationDeps,
  charge: RenewalChargeInput,
  opened: OpenedEntry | null,
  state: SubscriptionState,
  { clockMs, whenPaid }: { clockMs: number | undefined; whenPaid: RenewalChargeOptions['whenPaid'] },
): Promise<RenewalChargeResult | null> {
  let phase = 'charging' as 'charging' | 'recording' | 'given_up';
  const options: RenewalChargeOptions = {
    receipt: false,
    opened,
    whenPaid: whenPaid
      ? async (tx, paid, settled) => {
          if (phase === 'given_up') return;
          phase = 'recording';
          await whenPaid(tx, paid, settled);
        }
      : undefined,
  };
  const charging = atTime(clockMs, () => chargeRenewalInvoice(deps.prisma, deps.gateways, charge, options)).catch(
    (error: unknown) => {
      logger.warn(
        { err: error, subscriptionId: state.id },
        'first charge not finished by the API; the subscription workflow completes it',
      );
      return null;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<null>(
    (resolve) =>
      (timer = setTimeout(() => {
        if (phase !== 'charging') return;
        phase = 'given_up';
        resolve(null);
      }, CREATION_WAIT_MS)),
  );
  try {
    return await Promise.race([charging, waited]);
  } finally {
    clearTimeout(timer);
  }
}

interface PaidPeriod {
  object: SubscriptionObject;
  start: WorkflowStart;
}

/**
 * A paid first invoice: the period is recorded billed (version 3, subscription.updated) in the transaction
 * that settles the charge (docs/performance.md, "Sixteenth round"), as the workflow's first task would, and
 * the recorded start takes that state (with the charge's receipt), so the workflow has nothing to do until
 * the next period (docs/performance.md: the worker's share of a charged creation). `recorded` hears of it;
 * not hearing (the row was inserted the slow way, the attempt not opened with the invoice, the row moved
 * on) the workflow starts from the creation's state and its first task records the period.
 */
function paidPeriodRecorder(
  deps: CreationDeps,
  first: FirstInvoice,
  state: SubscriptionState,
  {
    testClock,
    started,
    prices,
  }: { testClock: TestClockBinding | null; started: SubscriptionStartExtras; prices: PriceObject[] },
  recorded: (paid: PaidPeriod) => void,
): RenewalChargeOptions['whenPaid'] {
  const { written } = first;
  const method = first.billing.opened?.method;
  if (!written || !method) return undefined;
  return async (tx, paidInvoice, settled) => {
    const billedState = periodBilled(state, 0, { id: first.billing.invoiceId }, null);
    const receipt = invoicePaymentReceipt(settled, method, paidInvoice);
    const start = subscriptionWorkflowStart(deps.taskQueue, billedState, testClock, started, receipt);
    // As they are now: the charge marked them billed (active). Prices billed before are as they were read (only
    // an active price's description can change), so they are read again only when one was billed first now.
    const billedPrices = prices.every((price) => price.active)
      ? prices
      : await readPrices(
          tx,
          state.accountId,
          prices.map((price) => price.id),
        );
    if (billedPrices.length !== new Set(prices.map((price) => price.id)).size) return;
    const object = await recordFirstPeriodBilled(tx, written, billedState, billedPrices, start);
    if (object) recorded({ object, start });
  };
}

/**
 * The creation a request made before under the same id (an Idempotency-Key's, whose answer was never
 * stored: the process died after the commit), as that request would have answered it: billing is
 * pending while its first invoice, charged automatically, is still open (its workflow charges it,
 * with the attempt key of the creation's own charge). Null when there is none.
 */
export async function createdBefore(prisma: Db, accountId: string, id: string): Promise<SubscriptionCreated | null> {
  const row = await readSubscriptionCollection(prisma, accountId, id);
  if (!row) return null;
  const invoice = row.latestInvoiceId ? await readInvoiceStatus(prisma, accountId, row.latestInvoiceId) : null;
  return {
    subscription: await getSubscriptionObject(prisma, accountId, id),
    billingPending: row.collectionMethod === 'charge_automatically' && invoice?.status === 'open',
  };
}

export function createSubscriptionRecords(
  ...args: Parameters<typeof writeAndChargeFirst>
): Promise<SubscriptionCreated> {
  // The first invoice is its workflow's own: the workflow starts from what became of it (paid by the
  // customer's balance or by the first charge), so it is told nothing of it (src/invoices/invoice-settlement.ts).
  return withoutSettlementNotice(() => writeAndChargeFirst(...args));
}

async function writeAndChargeFirst(
  deps: CreationDeps,
  spec: SubscriptionCreateSpec,
  nowMs: number,
  testClock: TestClockBinding | null,
  started: SubscriptionStartExtras,
  prices: PriceObject[],
  couponId?: string,
): Promise<SubscriptionCreated> {
  const clockMs = testClock?.time;
  const written = await atTime(clockMs, () =>
    writeSubscription(deps, spec, nowMs, testClock, started, prices, couponId),
  );
  const { state, start, first, object } = written;
  if (!first?.billing.charge) {
    await startRecordedWorkflow(deps, start);
    return { subscription: object!, billingPending: false };
  }
  // Charged before the start; the recorded start stands if this process dies first (the sweep starts it,
  // and the workflow's first task settles the period from what it finds).
  const paid: { period: PaidPeriod | null } = { period: null };
  const recordPaidPeriod = paidPeriodRecorder(deps, first, state, { testClock, started, prices }, (period) => {
    paid.period = period;
  });
  const charge = await chargeWithin(deps, first.billing.charge, first.billing.opened, state, {
    clockMs,
    whenPaid: recordPaidPeriod,
  });
  const recorded = charge?.outcome === 'paid' ? paid.period : null;
  if (recorded) {
    await startRecordedWorkflow(deps, recorded.start);
    return { subscription: recorded.object, billingPending: false };
  }
  await startRecordedWorkflow(deps, start);
  const answer = await readBack(deps, written);
  // Not read back: what the charge did is not known here, so the answer says billing is pending (202).
  return { subscription: answer.object, billingPending: charge === null || !answer.readBack };
}
