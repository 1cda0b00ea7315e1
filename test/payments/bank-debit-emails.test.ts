import { settleSimulatedBankDebit } from '../../src/use-cases/bank-debit-settlement';
import { registeredGateways } from '../../src/gateway-registrations';
import { bankDebitSettlementId } from '../../workflows/bank-debit-settlement';
import { emailsOfInvoice, startEmailWorld, waitUntil, type EmailWorld } from '../support/emails';
import { eventsOf, expectStatus } from '../support/harness';
import { addPaymentMethod, bankBody, BANK_ACCOUNTS, simpleInvoice } from '../support/payments';

// A bank debit's emails (docs/decisions.md §40): none while the bank holds it (invoice.payment_processing calls for
// none), one receipt once it is paid, however often its settlement is reported. The settlement is the timer's own
// activity, run here at once: its four days are test/payments/bank-debits.test.ts's, on the time-skipping server.
let world: EmailWorld;

beforeAll(async () => {
  world = await startEmailWorld('Debited Co');
});

afterAll(() => world.close());

it('a debit paid days later sends one receipt, and nothing while it is processing', async () => {
  const to = 'ada+debit@example.com';
  const customer = expectStatus(await world.api.post('/customers', { name: 'Ada', email: to }), 201, 'customer');
  await addPaymentMethod(world.api, customer.id, bankBody(BANK_ACCOUNTS.succeeds));
  const invoice = await simpleInvoice(world.api, customer.id, 2100);
  expect(expectStatus(await world.api.put(`/invoices/${invoice.id}`), 200, 'PUT invoice').status).toBe('open');
  const [debit] = expectStatus(await world.api.get(`/invoices/${invoice.id}/transactions`), 200, 'transactions').data;
  const processing = await waitUntil(async () => {
    const events = await eventsOf(world.app.prisma, world.accountId, 'invoice.payment_processing');
    return events.find((event) => (event.data as { id: string }).id === invoice.id);
  });
  expect(processing).toBeDefined();
  expect(await emailsOfInvoice(world.app.prisma, invoice.id)).toEqual([]);

  const gateways = registeredGateways(world.app.prisma);
  const settlement = { accountId: world.accountId, chargeId: debit.gateway_reference };
  expect(await settleSimulatedBankDebit(world.app.prisma, gateways, settlement)).toBe('recorded');
  expect(await settleSimulatedBankDebit(world.app.prisma, gateways, settlement)).toBe('ignored');
  expect(expectStatus(await world.api.get(`/invoices/${invoice.id}`), 200, 'GET invoice').status).toBe('paid');

  const emails = await waitUntil(async () => {
    const sent = await emailsOfInvoice(world.app.prisma, invoice.id);
    return sent.some((email) => email.status === 'sent') && sent;
  });
  // The receipt alone: invoice.payment_processing, written before it, called for none.
  expect(emails.map((email) => email.kind)).toEqual(['receipt']);
  await world.app.temporal.workflow
    .getHandle(bankDebitSettlementId(settlement.chargeId))
    .terminate('settled by the test');
});
