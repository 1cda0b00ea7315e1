import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { notFound } from '../http/errors';
import { askWorkflows, buildCustomerReport, type CustomerReport } from './customer-lookup';
import { customerActivity, findCustomerById } from './customer-lookup.records';

/** How long the report waits for each workflow's state query before it reads the database alone for it. */
const WORKFLOW_ANSWER_MS = 2_000;

/**
 * GET /customers/{externalKey}/billing-report: the report `npm run support -- customer` prints
 * (docs/operations.md) for one customer of the account (404 naming externalKey, also once deleted), its
 * live workflows asked for their state.
 */
export async function customerBillingReport(
  { prisma, temporal }: { prisma: Db; temporal: Client },
  accountId: string,
  customerId: string,
): Promise<CustomerReport> {
  const [customer] = await findCustomerById(prisma, customerId, accountId);
  if (!customer || customer.deletedAt) throw notFound('customer', customerId, 'externalKey');
  const activity = await customerActivity(prisma, customer);
  const answers = await askWorkflows(temporal, [activity], WORKFLOW_ANSWER_MS);
  return buildCustomerReport(customer, activity, answers);
}
