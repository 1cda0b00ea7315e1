import { TERMINAL_STATES } from './payment-plan.schemas';
import { currentTime } from '../lib/clock-time';
import { columnValue } from '../lib/columns';
import type { PaymentPlanPayment, TerminalSale } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { runTransaction } from '../db/sql-transaction';
import { badRequest, conflict, isRefusal } from '../http/errors';
import { newId } from '../lib/ids';
import { cardBrand } from '../payments';
import { toUnixSeconds } from '../lib/time';
import { processorSaleOutcome, type ProcessorSaleOutcome } from '../terminals';
import { saveProcessorTerminalCard, saveTerminalCard, type PresentedCard } from '../terminals';
import { terminalProcessorFor, type ProcessorSale, type ProcessorSaleReport } from '../terminals';
import { GatewayRequestError, type Gateways, type ProcessorPaymentMethod } from '../payments';
import type { TerminalState } from '../../workflows/payment-plan-contract';
import { recordSettled, type LedgerEntry } from '../transactions';
import { refundCanceledPlanSale } from './plan-refunds.service';
import {
  amountOf,
  applyPaymentCanceled,
  applyPaymentFailed,
  applyPaymentSucceeded,
  assertPlanOpen,
  holdInstallments,
  isDeposit,
  methodForPlan,
  owedInstallments,
  type PaymentUpdate,
} from './plan-payments.service';
import {
  insertPlanPayment,
  OPEN_TERMINAL_STATES,
  readLatestTerminalDeposit,
  readPaymentRow,
  readPlanAccountId,
  updatePlanPaymentRow,
  updatePlanRow,
  type PlanWithDetails,
} from './payment-plan.records';
import {
  claimTerminal,
  findSaleWithTerminal,
  findTerminal,
  insertTerminalSale,
  readSaleRow,
  releaseTerminal,
  requestSaleCancel,
  updateTerminalSale,
} from '../terminals';
import { readCustomerName } from '../customers';
import { findPayment, lockPlan } from './plan-lookup';
import { settleStatus } from './payment-plan.status';

// A sale waits on a terminal in the real world: its times there (ended_at, state_changed_at,
// cancel_requested_at) are the wall clock, which the stuck list measures them against
// (listOpenTerminalPayments); what the plan bills (paid, failed, its status) is at currentTime().

/**
 * How a terminal reports the end of a sale. `lost`: the sale ended but its outcome never arrived; the
 * simulated terminal's processor keeps `processorOutcome` (src/terminals/terminal-processor.ts).
 */
export type TerminalReport =
  | { outcome: 'approved'; card: PresentedCard | ProcessorPaymentMethod }
  | { outcome: 'approved_no_credential'; card?: PresentedCard }
  | { outcome: 'declined'; card?: PresentedCard }
  | { outcome: 'lost'; processorOutcome?: ProcessorSaleOutcome }
  | { outcome: 'cancelled' };

export interface ResolutionInput {
  outcome?: 'approved' | 'declined';
  payment_method?: string;
  external?: boolean;
}

const TERMINAL_DECLINE = { code: 'card_declined', message: 'The card was declined at the terminal.' };

function saleKey(planId: string, saleId: string): string {
  return `payment-plan:${planId}:terminal-sale:${saleId}`;
}

/**
 * Sends installments to a terminal: the terminal is taken (one sale at a time, else 409), the sale
 * waits for the customer, the payment is `processing` with terminal state `waiting`, and the
 * installments are held so that nothing else collects them meanwhile.
 */
async function startSale(
  tx: Tx,
  plan: PlanWithDetails,
  terminalId: string,
  numbers: number[],
  param: string,
): Promise<PaymentPlanPayment> {
  const terminal = await findTerminal(tx, plan.accountId, terminalId, param);
  const paymentId = newId('paymentPlanPayment');
  const saleId = newId('terminalSale');
  if (!(await claimTerminal(tx, terminal.id, saleId))) {
    throw conflict(
      `Terminal ${terminal.id} is busy with another sale; wait for it to end or cancel it.`,
      'terminal_busy',
    );
  }
  const amount = amountOf(plan, numbers);
  const payment = await insertPlanPayment(tx, {
    id: paymentId,
    accountId: plan.accountId,
    planId: plan.id,
    customerId: plan.customerId,
    method: 'terminal',
    deposit: isDeposit(plan, numbers),
    status: 'processing',
    amount,
    currency: plan.currency,
    installmentNumbers: numbers,
    terminalId: terminal.id,
    terminalSaleId: saleId,
    terminalState: 'waiting',
  });
  await insertTerminalSale(tx, {
    id: saleId,
    accountId: plan.accountId,
    terminalId: terminal.id,
    paymentId,
    amount,
    currency: plan.currency,
    status: 'waiting',
  });
  await holdInstallments(tx, plan.id, numbers, paymentId);
  return payment;
}

/** POST /payment-plans/{id}/deposit/terminal: installment 1 of a pending plan goes to the terminal. */
export async function startDepositOnTerminal(
  prisma: Db,
  accountId: string,
  planId: string,
  terminalId: string,
): Promise<void> {
  const payment = await runTransaction(prisma, async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    assertPlanOpen(plan);
    const deposit = plan.installments[0]!;
    if (plan.activatedAt !== null || deposit.status === 'paid') {
      throw conflict(`The deposit of payment plan ${planId} is paid already.`, 'deposit_paid');
    }
    if (deposit.heldByPaymentId) {
      throw conflict(
        `The deposit of payment plan ${planId} is being collected by payment ${deposit.heldByPaymentId}; cancel or resolve it first.`,
        'deposit_in_progress',
      );
    }
    return startSale(tx, plan, terminalId, [1], 'terminal');
  });
  await sendSaleToProcessor(prisma, accountId, payment);
}

/** POST /payment-plans/{id}/payments with a terminal: what is owed now goes to the terminal. */
export async function startTerminalPayment(
  prisma: Db,
  accountId: string,
  planId: string,
  terminalId: string,
): Promise<PaymentPlanPayment> {
  const payment = await runTransaction(prisma, async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    assertPlanOpen(plan);
    return startSale(tx, plan, terminalId, owedInstallments(plan), 'payment_method.terminal');
  });
  await sendSaleToProcessor(prisma, accountId, payment);
  return readPaymentRow(prisma, payment.id);
}

/** The sale as the terminal's processor is told it, under the sale's key. */
async function processorSaleOf(prisma: Db, accountId: string, payment: PaymentPlanPayment): Promise<ProcessorSale> {
  const found = await findSaleWithTerminal(prisma, accountId, payment.terminalSaleId!);
  const { terminal, ...sale } = found!;
  return { accountId, terminal, sale, planId: payment.planId, idempotencyKey: saleKey(payment.planId, sale.id) };
}

/**
 * The committed sale sent to the terminal's processor (after the commit: a processor's call is never made inside
 * the plan's lock). A processor that refuses it never started it: the sale ends cancelled, the installments free,
 * and the refusal is answered. One that did not answer may have started it: the sale stays waiting, to be
 * cancelled or to end by the processor's report (docs/decisions.md §47).
 */
async function sendSaleToProcessor(prisma: Db, accountId: string, payment: PaymentPlanPayment): Promise<void> {
  const processor = await terminalProcessorFor(prisma, accountId);
  const sale = await processorSaleOf(prisma, accountId, payment);
  try {
    const reference = await processor.startSale(sale);
    if (reference)
      await runTransaction(prisma, (tx) => updateTerminalSale(tx, sale.sale.id, { processorReference: reference }));
  } catch (error) {
    if (isRefusal(error)) await reportTerminalOutcome(prisma, accountId, sale.terminal.id, { outcome: 'cancelled' });
    throw error;
  }
}

async function customerName(tx: Tx, customerId: string): Promise<string> {
  return (await readCustomerName(tx, customerId)) ?? 'Card holder';
}

function cardShown(card: PresentedCard | ProcessorPaymentMethod): { cardLast4: string; cardBrand: string | null } {
  if ('number' in card) return { cardLast4: card.number.slice(-4), cardBrand: cardBrand(card.number) };
  return { cardLast4: card.last4, cardBrand: card.card?.brand ?? null };
}

async function endSale(
  tx: Tx,
  sale: TerminalSale,
  status: string,
  card?: PresentedCard | ProcessorPaymentMethod,
): Promise<void> {
  await updateTerminalSale(tx, sale.id, { status, endedAt: new Date(), ...(card ? cardShown(card) : {}) });
  await releaseTerminal(tx, sale.terminalId, sale.id);
}

/** The ledger entry of a terminal sale: its outcome is known when it is recorded, keyed by the sale. */
function saleEntry(plan: PlanWithDetails, payment: PaymentPlanPayment, paymentMethodId: string | null): LedgerEntry {
  return {
    accountId: plan.accountId,
    type: 'payment',
    customerId: plan.customerId,
    amount: payment.amount,
    currency: payment.currency,
    paymentMethodId,
    gatewayKey: saleKey(plan.id, payment.terminalSaleId!),
    description: `Payment plan ${plan.id}, installment ${payment.installmentNumbers.join(', ')} (terminal ${payment.terminalId})`,
  };
}

/** Money taken on the terminal: a succeeded transaction, then the payment and its installments. */
async function approve(
  tx: Tx,
  plan: PlanWithDetails,
  payment: PaymentPlanPayment,
  paymentMethodId: string | null,
  update: PaymentUpdate,
): Promise<void> {
  const transaction = await recordSettled(tx, saleEntry(plan, payment, paymentMethodId), {
    status: 'succeeded',
    gatewayReference: payment.terminalSaleId!,
  });
  if (plan.status === 'canceled') {
    // A canceled plan keeps no money: the sale is given back at once. Nothing is left to continue,
    // so the payment never stays approved_no_credential.
    const applied = await applyPaymentSucceeded(tx, payment, currentTime(), {
      transactionId: transaction.id,
      paymentMethodId,
      stateChangedAt: new Date(),
      ...update,
      terminalState: 'approved',
    });
    if (applied === 'refund_due') await refundCanceledPlanSale(tx, payment);
    return;
  }
  if (paymentMethodId && !plan.paymentMethodId) {
    await updatePlanRow(tx, plan.id, { paymentMethodId });
  }
  await applyPaymentSucceeded(tx, payment, currentTime(), {
    transactionId: transaction.id,
    paymentMethodId,
    stateChangedAt: new Date(),
    ...update,
  });
}

async function decline(
  tx: Tx,
  plan: PlanWithDetails,
  payment: PaymentPlanPayment,
  update: PaymentUpdate,
): Promise<void> {
  const transaction = await recordSettled(tx, saleEntry(plan, payment, null), {
    status: 'failed',
    gatewayReference: payment.terminalSaleId!,
    failureCode: TERMINAL_DECLINE.code,
    failureMessage: TERMINAL_DECLINE.message,
  });
  await applyPaymentFailed(tx, payment, TERMINAL_DECLINE, currentTime(), {
    transactionId: transaction.id,
    terminalState: 'declined',
    stateChangedAt: new Date(),
    ...update,
  });
}

/**
 * The terminal reports the end of its waiting sale (in test mode the test helpers play the
 * terminal). The outcome is recorded here, in one transaction: approved -> paid and the card saved
 * (it becomes the plan's card when the plan has none); approved_no_credential -> paid, no card kept,
 * waiting for a continuation; declined -> failed, installments free again; lost -> `resolving`
 * (installments stay held until someone resolves it); cancelled -> canceled, installments free.
 * The caller then tells the workflow (planUpdated).
 */
export async function reportTerminalOutcome(
  prisma: Db,
  accountId: string,
  terminalId: string,
  report: TerminalReport,
): Promise<PaymentPlanPayment> {
  const terminal = await findTerminal(prisma, accountId, terminalId, 'id');
  if (!terminal.currentSaleId) throw conflict(`No sale is waiting on terminal ${terminalId}.`, 'terminal_idle');
  const waiting = await readSaleRow(prisma, terminal.currentSaleId);
  const { planId } = await readPaymentRow(prisma, waiting.paymentId);

  return runTransaction(prisma, async (tx) => {
    const plan = await lockPlan(tx, accountId, planId);
    const sale = await readSaleRow(tx, waiting.id);
    if (sale.status !== 'waiting')
      throw conflict(`Sale ${sale.id} on terminal ${terminalId} has ended already.`, 'terminal_idle');
    const payment = await readPaymentRow(tx, sale.paymentId);
    const card = 'card' in report ? report.card : undefined;
    await endSale(tx, sale, report.outcome, card);

    switch (report.outcome) {
      case 'approved': {
        const method =
          'number' in report.card
            ? await saveTerminalCard(
                tx,
                accountId,
                plan.customerId,
                await customerName(tx, plan.customerId),
                report.card,
              )
            : await saveProcessorTerminalCard(tx, accountId, plan.customerId, report.card);
        await approve(tx, plan, payment, method.id, { terminalState: 'approved' });
        break;
      }
      case 'approved_no_credential':
        // A plan with a card on file needs no credential from this sale: nothing is left to continue.
        await approve(tx, plan, payment, null, {
          terminalState: plan.paymentMethodId ? 'approved' : 'approved_no_credential',
        });
        break;
      case 'declined':
        await decline(tx, plan, payment, {});
        break;
      case 'lost':
        if (report.processorOutcome && report.processorOutcome !== 'unknown')
          await updateTerminalSale(tx, sale.id, { processorOutcome: report.processorOutcome });
        await updatePlanPaymentRow(tx, payment.id, { terminalState: 'resolving', stateChangedAt: new Date() });
        break;
      case 'cancelled':
        await applyPaymentCanceled(tx, payment, { terminalState: 'cancelled', stateChangedAt: new Date() });
        break;
    }
    return readPaymentRow(tx, payment.id);
  });
}

/** The plan's latest deposit attempt still needing the terminal or a person, or 409. */
export async function currentDepositAttempt(
  db: Db | Tx,
  planId: string,
  states: readonly TerminalState[] = OPEN_TERMINAL_STATES,
): Promise<PaymentPlanPayment> {
  const attempt = await readLatestTerminalDeposit(db, planId);
  if (
    !attempt ||
    !states.includes(columnValue(TERMINAL_STATES, attempt.terminalState!, 'payment_plan_payments.terminal_state'))
  ) {
    throw conflict(
      `Payment plan ${planId} has no terminal deposit in ${states.join(' or ')}${attempt ? ` (its last attempt is ${attempt.terminalState})` : ''}.`,
      'no_deposit_attempt',
    );
  }
  return attempt;
}

/**
 * The continuation's input with its outcome: the caller's, or for a payment `resolving` without one,
 * the outcome the terminal's processor recorded for the sale (decisions.md §8). The processor holding
 * none leaves it absent (checkResolution then asks the caller for it).
 */
export async function withKnownOutcome(
  db: Db | Tx,
  payment: PaymentPlanPayment,
  input: ResolutionInput,
): Promise<ResolutionInput> {
  if (
    input.outcome ||
    payment.method !== 'terminal' ||
    payment.terminalState !== 'resolving' ||
    !payment.terminalSaleId
  )
    return input;
  const outcome = await processorSaleOutcome(db, payment.terminalSaleId);
  return outcome === 'unknown' ? input : { ...input, outcome };
}

/**
 * Checks a continuation before anything changes (the API calls it before signalling, the workflow's
 * activity again under the lock) and answers its input with the outcome known (withKnownOutcome). A
 * payment `waiting` needs the known `outcome`, one `resolving` too unless the terminal's processor has
 * it; one `approved_no_credential` was charged already and needs a card (`payment_method`) or
 * `external`, unless the plan has a card on file already.
 */
export async function checkResolution(
  db: Db | Tx,
  plan: PlanWithDetails,
  payment: PaymentPlanPayment,
  given: ResolutionInput,
): Promise<ResolutionInput> {
  if (payment.method !== 'terminal') {
    throw conflict(
      `Payment ${payment.id} was not taken on a terminal; there is nothing to resolve.`,
      'not_terminal_payment',
    );
  }
  const input = await withKnownOutcome(db, payment, given);
  if (input.payment_method && input.external)
    throw badRequest('Give either payment_method or external, not both.', 'external');
  if (input.outcome === 'declined' && (input.payment_method || input.external)) {
    throw badRequest(
      'payment_method and external go only with outcome approved.',
      input.external ? 'external' : 'payment_method',
    );
  }
  const state = columnValue(TERMINAL_STATES, payment.terminalState!, 'payment_plan_payments.terminal_state');
  if (!OPEN_TERMINAL_STATES.includes(state)) {
    throw conflict(
      `Payment ${payment.id} is ${state}; only waiting, resolving or approved_no_credential payments can be resolved.`,
      'payment_not_resolvable',
    );
  }
  if (state === 'approved_no_credential') {
    if (input.outcome === 'declined') {
      throw badRequest(
        `Payment ${payment.id} was charged (approved_no_credential); its outcome cannot be declined.`,
        'outcome',
      );
    }
    if (!input.payment_method && !input.external && !plan.paymentMethodId) {
      throw badRequest(
        'The card was charged but not saved: give payment_method (a card attached to the customer) or external: true (the next installments are collected outside the service).',
        'payment_method',
        'parameter_missing',
      );
    }
  } else if (!input.outcome) {
    const why =
      state === 'resolving' ? ` (the terminal's processor has no outcome for sale ${payment.terminalSaleId})` : '';
    throw badRequest(
      `Payment ${payment.id} is ${state}${why}: give the known outcome (approved or declined).`,
      'outcome',
      'parameter_missing',
    );
  }
  if (input.payment_method) await methodForPlan(db, plan, input.payment_method, 'payment_method');
  return input;
}

/**
 * Continues a terminal payment with a known outcome, the caller's or the terminal processor's (signals resolveTerminalPayment / resolveDeposit,
 * sent by the API or by support). A sale still waiting on the terminal is closed there first.
 * approved: paid; with `payment_method` that card becomes the plan's card, with `external` the plan
 * goes on without one, on a plan that has a card it goes on with that card; otherwise the payment
 * stays `approved_no_credential`. declined: failed. On a canceled plan an approved sale is refunded.
 */
export async function resolveTerminalPayment(
  prisma: Db,
  planId: string,
  paymentId: string | 'deposit',
  given: ResolutionInput,
  source: string,
): Promise<PaymentPlanPayment> {
  return runTransaction(prisma, async (tx) => {
    const accountId = await readPlanAccountId(tx, planId);
    const plan = await lockPlan(tx, accountId, planId);
    const payment =
      paymentId === 'deposit'
        ? await currentDepositAttempt(tx, planId)
        : await findPayment(tx, accountId, planId, paymentId);
    const input = await checkResolution(tx, plan, payment, given);
    const at = currentTime();
    const outcome = input.outcome ?? 'approved';
    const resolution = {
      outcome,
      payment_method: input.payment_method ?? null,
      external: input.external ?? false,
      source,
      at: toUnixSeconds(at),
    };
    const state = columnValue(TERMINAL_STATES, payment.terminalState!, 'payment_plan_payments.terminal_state');
    if (state === 'waiting') {
      await endSale(tx, await readSaleRow(tx, payment.terminalSaleId!), 'closed');
    }
    // A plan that has a card already goes on with it: an approved sale needs no continuation.
    const continued = Boolean(input.payment_method || input.external || plan.paymentMethodId);
    if (input.payment_method) {
      await updatePlanRow(tx, planId, { paymentMethodId: input.payment_method });
    }
    if (state === 'approved_no_credential') {
      await updatePlanPaymentRow(tx, payment.id, {
        terminalState: 'approved',
        resolution,
        stateChangedAt: new Date(),
        paymentMethodId: input.payment_method ?? payment.paymentMethodId,
      });
      await settleStatus(tx, planId, at);
    } else if (outcome === 'declined') {
      await decline(tx, plan, payment, { resolution });
    } else {
      await approve(tx, await lockPlan(tx, accountId, planId), payment, input.payment_method ?? null, {
        terminalState: continued ? 'approved' : 'approved_no_credential',
        resolution,
      });
    }
    return readPaymentRow(tx, payment.id);
  });
}

/**
 * Asks the terminal to cancel a waiting sale (signals cancelTerminalPayment / cancelDeposit). The
 * payment stays `waiting` with cancel_requested until the terminal reports the cancellation.
 */
export async function requestTerminalCancel(
  prisma: Db,
  planId: string,
  paymentId: string | 'deposit',
): Promise<PaymentPlanPayment> {
  const requested = await runTransaction(prisma, async (tx) => {
    const accountId = await readPlanAccountId(tx, planId);
    await lockPlan(tx, accountId, planId);
    const payment =
      paymentId === 'deposit'
        ? await currentDepositAttempt(tx, planId, ['waiting'])
        : await findPayment(tx, accountId, planId, paymentId);
    checkCancellable(payment);
    if (payment.cancelRequestedAt) return payment;
    const at = new Date();
    await requestSaleCancel(tx, payment.terminalSaleId!, at);
    return updatePlanPaymentRow(tx, payment.id, { cancelRequestedAt: at });
  });
  // Asked again on a repeated request too: a processor that did not answer the first time is asked once more.
  const processor = await terminalProcessorFor(prisma, requested.accountId);
  const sale = await processorSaleOf(prisma, requested.accountId, requested);
  if ((await processor.cancelSale(sale)) === 'cancelled' && sale.sale.status === 'waiting')
    return reportTerminalOutcome(prisma, requested.accountId, sale.terminal.id, { outcome: 'cancelled' });
  return requested;
}

export function checkCancellable(payment: PaymentPlanPayment): void {
  if (payment.method !== 'terminal') {
    throw conflict(
      `Payment ${payment.id} was not taken on a terminal; there is no sale to cancel.`,
      'not_terminal_payment',
    );
  }
  if (payment.terminalState !== 'waiting') {
    throw conflict(
      `Payment ${payment.id} is ${payment.terminalState}; only a sale waiting on the terminal can be cancelled.`,
      'payment_not_waiting',
    );
  }
}

/**
 * Test mode, a processor's terminal (docs/decisions.md §47): its own test card is presented to the reader and the
 * waiting payment answered as it is (the outcome arrives with the processor's event). Null: the simulated terminal,
 * whose test helper reports the outcome itself.
 */
export async function presentProcessorTestCard(
  prisma: Db,
  accountId: string,
  terminalId: string,
): Promise<PaymentPlanPayment | null> {
  const terminal = await findTerminal(prisma, accountId, terminalId, 'id');
  const processor = await terminalProcessorFor(prisma, accountId);
  if (!processor.presentTestCard) return null;
  if (!terminal.currentSaleId) throw conflict(`No sale is waiting on terminal ${terminalId}.`, 'terminal_idle');
  const payment = await readPaymentRow(prisma, (await readSaleRow(prisma, terminal.currentSaleId)).paymentId);
  await processor.presentTestCard(await processorSaleOf(prisma, accountId, payment));
  return payment;
}

/**
 * A processor's report of one of the account's sales (its webhook): recorded as the terminal's report, once. An
 * approved sale's generated card is attached to the customer at the processor first (the sale is approved without
 * a credential when the processor refuses it). Null: not a sale of this account waiting on its terminal (another
 * account's, one the service did not make, or one ended already: a redelivery, or a report after a resolution).
 */
export async function recordProcessorSaleReport(
  prisma: Db,
  gateways: Gateways,
  report: ProcessorSaleReport,
): Promise<PaymentPlanPayment | null> {
  const found = await findSaleWithTerminal(prisma, report.accountId, report.sale);
  if (!found || found.status !== 'waiting' || found.terminal.currentSaleId !== found.id) return null;
  let terminalReport: TerminalReport;
  if (report.outcome === 'approved') {
    const card = report.generatedCard ? await importSaleCard(prisma, gateways, found, report.generatedCard) : null;
    terminalReport = card ? { outcome: 'approved', card } : { outcome: 'approved_no_credential' };
  } else {
    terminalReport = { outcome: report.outcome };
  }
  try {
    return await reportTerminalOutcome(prisma, report.accountId, found.terminalId, terminalReport);
  } catch (error) {
    // Another report (the test helper, a resolution) ended the sale first.
    if (isRefusal(error) && error.code === 'terminal_idle') return null;
    throw error;
  }
}

async function importSaleCard(
  prisma: Db,
  gateways: Gateways,
  sale: TerminalSale,
  generatedCard: string,
): Promise<ProcessorPaymentMethod | null> {
  const gateway = await gateways.gatewayFor(sale.accountId);
  if (!gateway.importPaymentMethod) return null;
  const { customerId } = await readPaymentRow(prisma, sale.paymentId);
  try {
    return await gateway.importPaymentMethod({ paymentMethodId: generatedCard, customerId });
  } catch (error) {
    if (error instanceof GatewayRequestError) return null;
    throw error;
  }
}
