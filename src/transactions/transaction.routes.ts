import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { invoiceIdParams } from '../invoices';
import { customerIdParams } from '../customers';
import {
  balanceSchema,
  balanceTransactionSchema,
  balanceTransactionsQuery,
  invoiceTransactionParams,
  invoiceTransactionsQuery,
  listTransactionsQuery,
  transactionIdParams,
  transactionSchema,
} from './transaction.schemas';
import {
  getBalance,
  listBalanceTransactions,
  getInvoiceTransaction,
  getTransaction,
  listInvoiceTransactions,
  listTransactions,
} from './transaction.service';

export function registerTransactionRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Transactions';

  api.route({
    method: 'get',
    path: '/transactions',
    tag,
    summary: 'List transactions (payment attempts, refunds, adjustments), newest first',
    query: listTransactionsQuery,
    response: pageSchema(transactionSchema),
    errors: [404],
    handler: ({ principal, query }) => listTransactions(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/transactions/{id}',
    tag,
    summary: 'Retrieve a transaction',
    params: transactionIdParams,
    response: transactionSchema,
    errors: [404],
    handler: ({ principal, params }) => getTransaction(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'get',
    path: '/invoices/{id}/transactions',
    tag,
    summary: 'List the transactions of an invoice',
    params: invoiceIdParams,
    query: invoiceTransactionsQuery,
    response: pageSchema(transactionSchema),
    errors: [404],
    handler: ({ principal, params, query }) => listInvoiceTransactions(prisma, principal.accountId, params.id, query),
  });

  api.route({
    method: 'get',
    path: '/invoices/{id}/transactions/{transactionId}',
    tag,
    summary: 'Retrieve one transaction of an invoice',
    params: invoiceTransactionParams,
    response: transactionSchema,
    errors: [404],
    handler: ({ principal, params }) =>
      getInvoiceTransaction(prisma, principal.accountId, params.id, params.transactionId),
  });

  api.route({
    method: 'get',
    path: '/balance',
    tag: 'Balance',
    summary: 'The account balance: succeeded transactions are available, pending ones pending, per currency',
    response: balanceSchema,
    handler: ({ principal }) => getBalance(prisma, principal.accountId),
  });

  api.route({
    method: 'get',
    path: '/customers/{externalKey}/balance-transactions',
    tag: 'Customers',
    summary: "The history of a customer's credit balance, newest first",
    description:
      'Each entry changed `balance` by `amount` (negative adds credit) and says what it ended at: credit notes credited to the ' +
      'balance, credit applied to an invoice at its finalization, credit given back when such an invoice was voided.',
    params: customerIdParams,
    query: balanceTransactionsQuery,
    response: pageSchema(balanceTransactionSchema),
    errors: [404],
    handler: ({ principal, params, query }) =>
      listBalanceTransactions(prisma, principal.accountId, params.externalKey, query),
  });
}
