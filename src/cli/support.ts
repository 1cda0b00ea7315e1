import crypto from 'node:crypto';
import { currentTime } from '../lib/clock-time';
import type { Connection, Client } from '@temporalio/client';
import { config } from '../config';
import type { Db } from '../db/prisma';
import { registeredGateways } from '../gateway-registrations';
import { recordOperatorAction, type OperatorActor } from '../accounts';
import { formatMoney } from '../lib/money';
import { toUnixSeconds } from '../lib/time';
import { MINUTE_MS } from '../lib/durations';
import { listOpenTerminalPayments, toPaymentObject } from '../payment-plans';
import { readPaymentOfPlan } from '../payment-plans';
import {
  applyPlanRequest,
  changePaymentPlanSettings,
  findPaymentPlanSettings,
  getPaymentPlanSettings,
} from '../payment-plans';
import { MAX_DEFAULT_AFTER_DAYS, MIN_DEFAULT_AFTER_DAYS } from '../payment-plans';
import { sendPlanRequest } from '../payment-plans';
import { connectTemporal, connectTemporalClient, temporalClient } from '../temporal';
import {
  askWorkflows,
  buildCustomerReport,
  formatCustomerReport,
  unansweredWorkflows,
  type WorkflowAnswers,
} from '../support';
import { customerActivity, findCustomerById, findCustomersByEmail, type CustomerActivity } from '../support';
import type { PaymentPlanRequestArgs, PaymentPlanRequestKind } from '../../workflows/payment-plan-contract';
import { fail, operatorActor, parseCommandLine, refuse, runCommand, withDatabase } from './operator';

const usage = `Usage: npm run support -- <command>
  customer <email|cus_id> [--account acct_...] [--database-only] [--timeout-seconds S] [--json]
      Why was this customer charged, or not: the customer, subscriptions (dunning), payment plans, the last
      invoices with their numbers, the charges with card and the processor's answer, and what comes next.
      Email case-insensitive, every customer with it; from the database, with the workflows' state query when
      they answer within S seconds (default 5; --database-only: not asked).
  terminal:stuck [--minutes N] [--account acct_...] [--json]
      Terminal payments waiting (or needing a resolution) for more than N minutes (default 15):
      account, plan, payment, customer, terminal label, state, age, amount ($200.00).
  terminal:resolve <plan_id> <payment_id> [--outcome approved|declined] [--payment-method pm_...] [--external] [--timeout-seconds S] [--json]
      Sends the update resolveTerminalPayment with the known outcome; prints what the workflow did.
  terminal:cancel <plan_id> <payment_id> [--json]
      Sends the update cancelTerminalPayment (asks the terminal to cancel its waiting sale); prints the result.
  payment-plans:settings <account_id> [--enable | --disable] [--default-after-days N] [--json]
      Turn payment plans on or off for an account; days a past_due plan waits before it is defaulted (1 to 365).
      The same settings as GET/PUT /settings/payment-plans (a superadmin's, in the dashboard's Settings).
  Commands that change something take --operator NAME: who to record (default: the OS user@host).
Connects to TEMPORAL_ADDRESS (default 127.0.0.1:$TEMPORAL_PORT, port 7233) and the service's database (DATABASE_URL or the embedded one).
Exit codes: 0 done, 1 failed or refused (unknown customer, plan, payment or account; a refused request), 2 bad usage (docs/operations.md).`;

interface Options {
  minutes?: string;
  account?: string;
  outcome?: string;
  'payment-method'?: string;
  external?: boolean;
  enable?: boolean;
  disable?: boolean;
  'default-after-days'?: string;
  'timeout-seconds'?: string;
  'database-only'?: boolean;
  operator?: string;
  json?: boolean;
}

function positiveInt(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) fail(`--${name} must be an integer >= ${min}.\n${usage}`);
  return parsed;
}

/** --default-after-days: the range PUT /settings/payment-plans accepts (MIN_DEFAULT_AFTER_DAYS to MAX_DEFAULT_AFTER_DAYS). */
function defaultAfterDaysOption(options: Options): number | undefined {
  const value = options['default-after-days'];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < MIN_DEFAULT_AFTER_DAYS || parsed > MAX_DEFAULT_AFTER_DAYS)
    fail(
      `--default-after-days must be an integer from ${MIN_DEFAULT_AFTER_DAYS} to ${MAX_DEFAULT_AFTER_DAYS}.\n${usage}`,
    );
  return parsed;
}

async function stuck(prisma: Db, options: Options): Promise<number> {
  const minutes = positiveInt(options.minutes, 'minutes', 15);
  const now = Date.now();
  const open = await listOpenTerminalPayments(prisma, {
    accountId: options.account,
    before: new Date(now - minutes * MINUTE_MS),
    take: 500,
  });
  const rows = open.map(({ payment, customer, terminalLabel }) => ({
    account: payment.accountId,
    plan: payment.planId,
    payment: payment.id,
    workflow_id: `payment-plan:${payment.planId}`,
    customer: customer?.id ?? null,
    customer_name: customer?.name ?? null,
    terminal: payment.terminalId,
    terminal_label: terminalLabel,
    sale: payment.terminalSaleId,
    state: payment.terminalState,
    deposit: payment.deposit,
    cancel_requested: payment.cancelRequestedAt !== null,
    amount: Number(payment.amount),
    currency: payment.currency,
    since: toUnixSeconds(payment.stateChangedAt),
    age_minutes: Math.floor((now - payment.stateChangedAt.getTime()) / MINUTE_MS),
  }));
  if (options.json) {
    console.log(JSON.stringify(rows));
    return 0;
  }
  if (rows.length === 0) {
    console.log(`No terminal payment has waited more than ${minutes} minutes.`);
    return 0;
  }
  const header = ['ACCOUNT', 'PLAN', 'PAYMENT', 'CUSTOMER', 'TERMINAL', 'STATE', 'AGE', 'AMOUNT', 'NOTE'];
  const table = rows.map((row) => [
    row.account,
    row.plan,
    row.payment,
    row.customer_name ?? row.customer ?? '',
    row.terminal ? `${row.terminal_label ?? ''} (${row.terminal})`.trimStart() : '',
    row.state ?? '',
    `${row.age_minutes} min`,
    formatMoney(row.amount, row.currency),
    [row.deposit ? 'deposit' : '', row.cancel_requested ? 'cancel requested' : ''].filter(Boolean).join(', '),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((line) => line[column]!.length)));
  for (const line of [header, ...table])
    console.log(
      line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
  return 0;
}

/**
 * Sends the same update the API sends and prints what the workflow did with it. A refusal (by the
 * update's validator, or by the workflow: wrong state) prints `Refused: ...` and exits 1.
 */
async function requestPayment(
  prisma: Db,
  temporal: Client,
  kind: PaymentPlanRequestKind,
  planId: string,
  paymentId: string,
  args: PaymentPlanRequestArgs,
  options: Options,
  actor: OperatorActor,
): Promise<number> {
  const payment = await readPaymentOfPlan(prisma, planId, paymentId);
  if (!payment) refuse(`No payment ${paymentId} on payment plan ${planId}.`);
  const requestId = `support_${crypto.randomUUID()}`;
  const record = await sendPlanRequest(
    temporal,
    planId,
    kind,
    { ...args, payment_id: paymentId, source: 'support-cli', request_id: requestId },
    {
      timeoutMs: positiveInt(options['timeout-seconds'], 'timeout-seconds', 30, 1) * 1000,
      whenEnded: (sent) => applyPlanRequest(prisma, planId, kind, sent, currentTime(), registeredGateways(prisma)),
    },
  );
  // The identity stays out of the workflow's `source`, which the API shows merchants: the request id links the two.
  await recordOperatorAction(prisma, actor, {
    accountId: payment.accountId,
    target: paymentId,
    detail: {
      plan: planId,
      request: kind,
      request_id: requestId,
      args: { ...args },
      applied: record.applied,
      ...(record.applied ? {} : { code: record.code }),
    },
  });
  const after = toPaymentObject((await readPaymentOfPlan(prisma, planId, paymentId))!);
  if (options.json) {
    console.log(JSON.stringify({ request: record, payment: after }));
  } else {
    console.log(`${record.applied ? 'Done' : 'Refused'}: ${record.message}`);
    console.log(
      `Payment ${after.id}: status ${after.status}, terminal state ${after.terminal?.state ?? '-'}${after.terminal?.cancel_requested ? ' (cancel requested)' : ''}`,
    );
  }
  return record.applied ? 0 : 1;
}

async function settings(prisma: Db, accountId: string, options: Options, actor: OperatorActor): Promise<number> {
  if (!(await findPaymentPlanSettings(prisma, accountId))) refuse(`No account ${accountId}.`);
  const days = defaultAfterDaysOption(options);
  const enabled = options.enable ? true : options.disable ? false : undefined;
  if (enabled !== undefined || days !== undefined) {
    await prisma.$transaction(async (tx) => {
      await changePaymentPlanSettings(tx, accountId, { enabled, default_after_days: days });
      await recordOperatorAction(tx, actor, {
        accountId,
        target: accountId,
        detail: {
          ...(enabled !== undefined ? { payment_plans: enabled } : {}),
          ...(days !== undefined ? { default_after_days: days } : {}),
        },
      });
    });
  }
  // The same read as GET /settings/payment-plans.
  const current = await getPaymentPlanSettings(prisma, accountId);
  const result = {
    account_id: accountId,
    payment_plans: current.enabled,
    default_after_days: current.default_after_days,
  };
  console.log(
    options.json
      ? JSON.stringify(result)
      : `Account ${accountId}: payment plans ${current.enabled ? 'enabled' : 'disabled'}; a past_due plan defaults after ${result.default_after_days} days (plans created from now on).`,
  );
  return 0;
}

const FLAGS = {
  minutes: { type: 'string' },
  account: { type: 'string' },
  outcome: { type: 'string' },
  'payment-method': { type: 'string' },
  external: { type: 'boolean' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
  'default-after-days': { type: 'string' },
  'timeout-seconds': { type: 'string' },
  'database-only': { type: 'boolean', default: false },
  operator: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/**
 * The `state` query of each live subscription and payment-plan workflow of the customers, each within
 * `timeoutMs` (askWorkflows); with --database-only, or when Temporal cannot be reached, each is noted
 * with the reason and the report falls back on the database.
 */
async function workflowAnswers(
  activities: CustomerActivity[],
  timeoutMs: number,
  databaseOnly: boolean,
): Promise<WorkflowAnswers> {
  if (databaseOnly) return unansweredWorkflows(activities, 'not asked (--database-only)');
  let connection: Connection;
  try {
    connection = await connectTemporal({ address: config.temporalAddress, connectTimeout: timeoutMs });
  } catch (error) {
    return unansweredWorkflows(
      activities,
      `Temporal not reachable at ${config.temporalAddress} (${(error as Error).message.split('\n')[0]})`,
    );
  }
  try {
    // The service's data converter: the state query's answer is encrypted (src/temporal/payload-codec.ts).
    return await askWorkflows(temporalClient(connection), activities, timeoutMs);
  } finally {
    await connection.close();
  }
}

/** `customer <email|cus_id>`: every customer found, as text or JSON (docs/operations.md, "Why was this customer charged"). */
async function customerLookup(prisma: Db, query: string, options: Options): Promise<number> {
  const customers = /^cus_/.test(query)
    ? await findCustomerById(prisma, query, options.account)
    : await findCustomersByEmail(prisma, query, options.account);
  if (customers.length === 0)
    refuse(
      `No customer ${query.startsWith('cus_') ? query : `with the email ${query}`}${options.account ? ` in account ${options.account}` : ''}.`,
    );
  const activities = await Promise.all(customers.map((customer) => customerActivity(prisma, customer)));
  const answers = await workflowAnswers(
    activities,
    positiveInt(options['timeout-seconds'], 'timeout-seconds', 5, 1) * 1000,
    options['database-only'] === true,
  );
  const reports = customers.map((customer, index) => buildCustomerReport(customer, activities[index]!, answers));
  if (options.json) {
    console.log(JSON.stringify({ query, customers: reports }));
  } else {
    if (reports.length > 1) console.log(`${reports.length} customers have the email ${query}:\n`);
    console.log(reports.map(formatCustomerReport).join('\n\n' + '-'.repeat(72) + '\n\n'));
  }
  return 0;
}

async function main(): Promise<number> {
  const { values, positionals } = parseCommandLine(usage, FLAGS, { allowPositionals: true });
  const options = values as Options;
  const [command, ...rest] = positionals;

  switch (command) {
    case 'customer': {
      const [query] = rest;
      if (!query || rest.length > 1) fail(`customer takes one email or cus_ id.\n${usage}`);
      if (!/^cus_[A-Za-z0-9]+$/.test(query) && !/^[^\s@]+@[^\s@]+$/.test(query))
        fail(`"${query}" is neither an email nor a customer id (cus_...).\n${usage}`);
      positiveInt(options['timeout-seconds'], 'timeout-seconds', 5, 1);
      return withDatabase((prisma) => customerLookup(prisma, query, options));
    }
    case 'terminal:stuck':
      positiveInt(options.minutes, 'minutes', 15);
      return withDatabase((prisma) => stuck(prisma, options));
    case 'terminal:resolve':
    case 'terminal:cancel': {
      const [planId, paymentId] = rest;
      if (!planId || !paymentId) fail(usage);
      if (options.outcome !== undefined && options.outcome !== 'approved' && options.outcome !== 'declined') {
        fail(`--outcome must be approved or declined.\n${usage}`);
      }
      positiveInt(options['timeout-seconds'], 'timeout-seconds', 30, 1);
      const actor = operatorActor(options.operator, `support ${command}`);
      const temporal = await connectTemporalClient();
      try {
        return await withDatabase((prisma) =>
          command === 'terminal:resolve'
            ? requestPayment(
                prisma,
                temporal.client,
                'resolveTerminalPayment',
                planId,
                paymentId,
                {
                  outcome: options.outcome as 'approved' | 'declined' | undefined,
                  payment_method: options['payment-method'],
                  external: options.external,
                },
                options,
                actor,
              )
            : requestPayment(prisma, temporal.client, 'cancelTerminalPayment', planId, paymentId, {}, options, actor),
        );
      } finally {
        await temporal.connection.close();
      }
    }
    case 'payment-plans:settings': {
      const [accountId] = rest;
      if (!accountId) fail(usage);
      if (options.enable && options.disable) fail('Give --enable or --disable, not both.');
      defaultAfterDaysOption(options);
      const actor = operatorActor(options.operator, 'support payment-plans:settings');
      return withDatabase((prisma) => settings(prisma, accountId, options, actor));
    }
    default:
      fail(command ? `Unknown command "${command}".\n${usage}` : usage);
  }
}

runCommand(main);
