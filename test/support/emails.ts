import crypto from 'node:crypto';
import type { Db } from '../../src/db/prisma';
import { emailConsumer } from '../../src/emails/email-trigger';
import { createMailer, type Mailer } from '../../src/emails/mailer';
import { startSmtpCatcher, type SmtpCatcher } from '../../src/emails/smtp-catcher';
import { startRelay, type Relay } from '../../src/webhooks/relay';
import { waitUntil } from './webhooks';
import { createTaxRate } from './payments';
import { customerWithAddresses } from './pdf';

export { waitUntil };
import {
  apiClient,
  createTestAccount,
  expectStatus,
  quietRuntime,
  startTestApp,
  startTestWorker,
  type ApiClient,
  type TestApp,
} from './harness';

/**
 * The emails' whole path on the suite's dev server: the API, a worker whose email activities send to
 * an SMTP catcher of this file's own (real SMTP on a loopback port, messages kept in caught_emails),
 * and the outbox relay with the email consumer for two accounts (the one under test and another).
 */
export interface EmailWorld {
  app: TestApp;
  catcher: SmtpCatcher;
  mailer: Mailer;
  relay: Relay;
  /** The worker's task queue (a workflow a test runs itself runs there). */
  taskQueue: string;
  api: ApiClient;
  apiKey: string;
  accountId: string;
  other: ApiClient;
  otherAccountId: string;
  close(): Promise<void>;
}

export async function startEmailWorld(accountName = 'Lovelace Analytics'): Promise<EmailWorld> {
  quietRuntime();
  const taskQueue = `emails-${crypto.randomUUID()}`;
  const app = await startTestApp({ taskQueue });
  const catcher = await startSmtpCatcher({ prisma: app.prisma });
  const mailer = createMailer(catcher.url);
  const worker = await startTestWorker(app.prisma, taskQueue, undefined, { mailer });
  const account = await createTestAccount(app.prisma, { name: accountName });
  const otherAccount = await createTestAccount(app.prisma, { name: 'Other' });
  const relay = startRelay({
    prisma: app.prisma,
    databaseUrl: process.env.DATABASE_URL!,
    temporal: app.temporal,
    taskQueue,
    accountIds: () => [account.accountId, otherAccount.accountId],
    consumers: [emailConsumer(app.temporal, taskQueue)],
    pollIntervalMs: 250,
  });
  return {
    app,
    catcher,
    mailer,
    relay,
    taskQueue,
    api: apiClient(app.baseUrl, account.apiKey),
    apiKey: account.apiKey,
    accountId: account.accountId,
    other: apiClient(app.baseUrl, otherAccount.apiKey),
    otherAccountId: otherAccount.accountId,
    async close() {
      await relay.stop();
      await worker.stop();
      mailer.close();
      await catcher.stop();
      await app.close();
    },
  };
}

/** The account's emails about an invoice, as the emails table holds them. */
export function emailsOfInvoice(prisma: Db, invoiceId: string) {
  return prisma.email.findMany({ where: { invoiceId }, orderBy: { createdAt: 'asc' } });
}

/**
 * A `send_invoice` invoice for a new customer (addresses and shipping of customerWithAddresses, email
 * `to`), its lines taxed at 20 % exclusive unless they name their own rates, finalized: its email follows.
 */
export async function finalizeSendInvoice(
  api: ApiClient,
  to: string,
  lines: { description: string; amount: number; quantity?: number; taxed?: boolean }[] = [
    { description: 'Analytical engine tune-up', amount: 48000, taxed: true },
  ],
) {
  const customer = expectStatus(await api.post('/customers', { ...customerWithAddresses, email: to }), 201, 'customer');
  const vat = await createTaxRate(api, 20, false);
  const invoice = expectStatus(
    await api.post('/invoices', {
      customer: customer.id,
      collection_method: 'send_invoice',
      due_date: Math.floor(Date.now() / 1000) + 14 * 86400,
      lines: lines.map(({ taxed, ...line }) => ({ ...line, ...(taxed ? { tax: [vat.id] } : {}) })),
    }),
    201,
    'invoice',
  );
  return { customer, invoice: expectStatus(await api.post(`/invoices/${invoice.id}/finalize`), 200, 'finalize') };
}

/** The catcher's messages of the account to `to`, newest first, once there is one. */
export async function caughtMessages(api: ApiClient, to: string) {
  return waitUntil(async () => {
    const page = expectStatus(await api.get(`/test-helpers/emails?to=${encodeURIComponent(to)}`), 200, 'list');
    return page.data.length > 0 && page.data;
  });
}
