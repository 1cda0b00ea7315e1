import type { Db } from '../../src/db/prisma';
import type { PaymentGateway } from '../../src/payments/gateway';
import type { Gateways } from '../../src/payments/gateways';
import { registeredGateways } from '../../src/gateway-registrations';
import type { Client } from '@temporalio/client';
import { bankDebitSettlementId } from '../../workflows/bank-debit-settlement';
import type { ApiClient } from './harness';
import { waitUntil } from './webhooks';

export const CARDS = {
  succeeds: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  processingError: '4000000000000119',
  /** Stripe's 3-D Secure test card: the charge waits for the customer to authenticate it. */
  authenticationRequired: '4000002760003184',
} as const;

export const BANK_ACCOUNTS = {
  succeeds: '000123456789',
  accountClosed: '000111111116',
  insufficientFunds: '000222222227',
} as const;

export const TEST_ROUTING_NUMBER = '110000000';

const FUTURE_YEAR = new Date().getUTCFullYear() + 3;

export function cardBody(number: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'card',
    card: { number, exp_month: 12, exp_year: FUTURE_YEAR, cvc: '123' },
    billing_details: { name: 'Ada Lovelace' },
    ...extra,
  };
}

export function bankBody(accountNumber: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'us_bank_account',
    us_bank_account: {
      account_number: accountNumber,
      routing_number: TEST_ROUTING_NUMBER,
      account_holder_type: 'individual',
      account_type: 'checking',
    },
    billing_details: { name: 'Ada Lovelace' },
    ...extra,
  };
}

async function expectCreated(response: { status: number; body: any }, what: string) {
  if (response.status !== 201) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body;
}

export async function createCustomer(api: ApiClient, name = 'Grace Hopper') {
  return expectCreated(await api.post('/customers', { name, email: 'grace@example.com' }), 'POST /customers');
}

/** A card (or bank account body) created and attached to `customer`. */
export async function addPaymentMethod(api: ApiClient, customer: string, body: Record<string, unknown>) {
  return expectCreated(await api.post('/payment-methods', { ...body, customer }), 'POST /payment-methods');
}

/** A customer whose default payment method is the given card number. */
export async function customerWithCard(api: ApiClient, number: string = CARDS.succeeds) {
  const customer = await createCustomer(api);
  const method = await addPaymentMethod(api, customer.id, cardBody(number));
  return { customer, method };
}

export async function createInvoice(api: ApiClient, body: Record<string, unknown>) {
  return expectCreated(await api.post('/invoices', body), 'POST /invoices');
}

/** A one-line draft invoice of `amount` cents for the customer. */
export function simpleInvoice(api: ApiClient, customer: string, amount = 2500, extra: Record<string, unknown> = {}) {
  return createInvoice(api, { customer, lines: [{ description: 'Consulting', amount }], ...extra });
}

export async function createTaxRate(api: ApiClient, percentage: number, inclusive: boolean) {
  return expectCreated(
    await api.post('/taxRates', { display_name: `Tax ${percentage}%`, percentage, inclusive }),
    'POST /taxRates',
  );
}

/** Charges the simulated gateway has made (its own ledger) for the account. */
export function gatewayCharges(prisma: Db, accountId: string, kind: 'charge' | 'refund' = 'charge') {
  return prisma.gatewayCharge.count({ where: { accountId, kind } });
}

export async function setGatewayKind(prisma: Db, accountId: string, gatewayKind: 'card_processor' | 'bank_processor') {
  await prisma.account.update({ where: { id: accountId }, data: { gatewayKind } });
}

/** The account's registered gateway (the simulated one), as the service would charge through it. */
export function simulatorFor(prisma: Db, accountId: string): Promise<PaymentGateway> {
  return registeredGateways(prisma).gatewayFor(accountId);
}

/**
 * The registered gateways, each account's adapter wrapped by `wrap`: a test's stand-in that slows a call
 * down, loses its answer or refuses it, and hands the rest to the real adapter (its payment-method calls too,
 * which the app's payment methods make through the same gateways).
 */
export function wrappedGateways(prisma: Db, wrap: (real: PaymentGateway) => Partial<PaymentGateway>): Gateways {
  const registered = registeredGateways(prisma);
  return {
    async gatewayFor(account) {
      const real = await registered.gatewayFor(account);
      const stand = wrap(real);
      return {
        charge: stand.charge ?? ((request) => real.charge(request)),
        refund: stand.refund ?? ((request) => real.refund(request)),
        retrieveCharge: stand.retrieveCharge ?? ((request) => real.retrieveCharge(request)),
        retrieveRefund: stand.retrieveRefund ?? ((request) => real.retrieveRefund(request)),
        ...(real.importPaymentMethod && { importPaymentMethod: real.importPaymentMethod.bind(real) }),
        ...(real.detachPaymentMethod && { detachPaymentMethod: real.detachPaymentMethod.bind(real) }),
      };
    },
  };
}

/** The simulated gateway, whose charges wait until the test lets them go on. */
export function heldGateways(prisma: Db) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let started: () => void = () => {};
  const chargeStarted = new Promise<void>((resolve) => (started = resolve));
  const gateways = wrappedGateways(prisma, (real) => ({
    async charge(request) {
      started();
      await released;
      return real.charge(request);
    },
  }));
  return { gateways, release, chargeStarted };
}

/**
 * Waits until the simulated bank's settlement timer for a debit is set (its workflow's first task has run). A test on
 * a time-skipping environment moves the clock only after it: a timer set after the move waits for time the
 * environment never gives it, and a started workflow sets its timer only when a worker takes its first task.
 */
export async function settlementTimerSet(temporal: Client, gatewayReference: string): Promise<void> {
  await waitUntil(async () => {
    const history = await temporal.workflow
      .getHandle(bankDebitSettlementId(gatewayReference))
      .fetchHistory()
      .catch(() => null);
    return history?.events?.some((event) => event.timerStartedEventAttributes) ?? false;
  }, 60_000);
}
