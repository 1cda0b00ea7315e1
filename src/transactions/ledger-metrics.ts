import { Counter, Registry } from 'prom-client';
import { BANK_RETURNS, FAILURES } from '../simulated-gateway';

/**
 * Money that moved, counted by the one ledger writer (src/transactions/ledger.ts) once the entry's
 * transaction has committed, in whichever process moved it: the API (payments and refunds it is asked
 * for, a subscription's first invoice, terminal reports) or a worker (renewals, dunning retries,
 * payment-plan installments). Both serve this registry on their /metrics (docs/operations.md, "Metrics
 * and alerts"). No account label: accounts are unbounded, and one series per account, code and currency
 * would grow without end; the transactions of an account are in GET /transactions.
 */
export const ledgerRegistry = new Registry();

/** Failure codes kept as labels; any other code a gateway answers is counted as `other`, so the series stay bounded. */
export const FAILURE_CODE_LABELS: readonly string[] = [
  ...Object.keys(FAILURES),
  // The ACH returns of bank debits (docs/decisions.md §40).
  ...Object.values(BANK_RETURNS).map((bankReturn) => bankReturn.code),
  'expired_card',
  'payment_method_detached',
  'currency_not_supported',
  'other',
];

/** Currencies are ISO 4217 codes the API validated (a bounded set), upper case as the API writes them. */
const currencyLabel = (currency: string) => currency.toUpperCase();

function failureCodeLabel(code: string | null): string {
  if (code === null) return '';
  return FAILURE_CODE_LABELS.includes(code) ? code : 'other';
}

const attempts = new Counter({
  name: 'billing_charge_attempts_total',
  help: 'Charges opened in the ledger (a pending payment entry before the gateway is called, or a terminal sale recorded), by currency',
  labelNames: ['currency'],
  registers: [ledgerRegistry],
});
const charges = new Counter({
  name: 'billing_charges_total',
  help: 'Charges whose outcome the ledger recorded, by outcome (succeeded, failed) and failure code (empty when succeeded; unknown codes as other)',
  labelNames: ['outcome', 'failure_code'],
  registers: [ledgerRegistry],
});
const charged = new Counter({
  name: 'billing_charged_cents_total',
  help: 'Amount of succeeded charges in the currency minor unit (cents), by currency',
  labelNames: ['currency'],
  registers: [ledgerRegistry],
});
const refunds = new Counter({
  name: 'billing_refunds_total',
  help: 'Refunds whose outcome the ledger recorded, by outcome (succeeded, failed) and failure code',
  labelNames: ['outcome', 'failure_code'],
  registers: [ledgerRegistry],
});
const refunded = new Counter({
  name: 'billing_refunded_cents_total',
  help: 'Amount of succeeded refunds in the currency minor unit (cents), by currency',
  labelNames: ['currency'],
  registers: [ledgerRegistry],
});

/** A ledger entry opened now (not one found under its gateway key). */
export function countOpened(entry: { type: string; currency: string }): void {
  if (entry.type === 'payment') attempts.inc({ currency: currencyLabel(entry.currency) });
}

/** An entry's outcome, recorded now for the first time. `amount` is signed cents (refunds negative). */
export function countSettled(
  entry: { type: string; amount: bigint; currency: string },
  outcome: { status: 'succeeded' | 'failed'; failureCode?: string },
): void {
  const labels = {
    outcome: outcome.status,
    failure_code: failureCodeLabel(outcome.status === 'failed' ? (outcome.failureCode ?? 'other') : null),
  };
  const cents = Number(entry.amount < 0n ? -entry.amount : entry.amount);
  if (entry.type === 'payment') {
    charges.inc(labels);
    if (outcome.status === 'succeeded') charged.inc({ currency: currencyLabel(entry.currency) }, cents);
  } else if (entry.type === 'refund') {
    refunds.inc(labels);
    if (outcome.status === 'succeeded') refunded.inc({ currency: currencyLabel(entry.currency) }, cents);
  }
}
