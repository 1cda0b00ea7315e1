import type { AppDeps } from '../http/app-deps';
import { config } from '../config';
import type { Api } from '../http/api';
import { SUPERADMIN_ROLES, type Principal } from '../http/auth';
import { pageSchema } from '../http/pagination';
import { transactionSchema } from '../transactions';
import {
  createPaymentPlanBody,
  createPlanPaymentBody,
  depositTerminalBody,
  installmentSchema,
  listPaymentPlansQuery,
  MAX_DEFAULT_AFTER_DAYS,
  MIN_DEFAULT_AFTER_DAYS,
  openTerminalPaymentSchema,
  openTerminalPaymentsQuery,
  pageQuery,
  paymentPlanSchema,
  paymentPlanSettingsBody,
  paymentPlanSettingsSchema,
  refundPlanPaymentBody,
  planIdParams,
  planPaymentParams,
  planPaymentSchema,
  resolveTerminalBody,
} from './payment-plan.schemas';
import {
  assertPaymentPlansEnabled,
  assertPaymentPlansUsable,
  createPaymentPlan,
  DEFAULT_AFTER_DAYS,
  getPaymentPlan,
  getPaymentPlanSettings,
  listInstallments,
  listPaymentPlans,
  listPlanPayments,
  putPaymentPlanSettings,
} from './payment-plan.service';
import {
  cancelDeposit,
  cancelPaymentPlan,
  cancelPlanPayment,
  getPlanPayment,
  listStuckTerminalPayments,
  payPlan,
  refundPaymentOfPlan,
  resolveDeposit,
  resolvePlanPayment,
  sendDepositToTerminal,
} from './plan-actions.service';
import { z } from 'zod';

/** Payment plans (the terminals they use are terminal.routes.ts). */
export function registerPaymentPlanRoutes(api: Api, deps: AppDeps): void {
  const { prisma, temporal } = deps;
  const taskQueue = deps.taskQueue ?? config.taskQueue;
  const actionDeps = { prisma, temporal, gateways: deps.gateways };
  const tag = 'Payment plans';
  const planErrors = [403, 404, 409];

  // Payment plans are off per account until enabled: 403 feature_not_enabled. Turning them off
  // refuses new plans only: plans that exist stay readable, payable and cancellable (they keep running).
  const createGuard = (principal: Principal) => assertPaymentPlansEnabled(prisma, principal.accountId);
  const guard = (principal: Principal) => assertPaymentPlansUsable(prisma, principal.accountId);

  // The switch itself is not behind the guard: an account with payment plans off turns them on here.
  api.route({
    method: 'get',
    path: '/settings/payment-plans',
    tag,
    summary: 'Whether the account may create payment plans, and the days a past_due plan waits before it is defaulted',
    description: `Payment plans are off for a new account; default_after_days is ${DEFAULT_AFTER_DAYS} until the account sets it. Any role.`,
    response: paymentPlanSettingsSchema,
    handler: ({ principal }) => getPaymentPlanSettings(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/payment-plans',
    tag,
    roles: SUPERADMIN_ROLES,
    summary: 'Turn payment plans on or off, or set default_after_days (superadmin)',
    description:
      'Give enabled, default_after_days or both; what is not given stays. Turning plans off refuses new plans only: ' +
      'plans that exist keep running and stay readable, payable and cancellable. default_after_days ' +
      `(${MIN_DEFAULT_AFTER_DAYS} to ${MAX_DEFAULT_AFTER_DAYS}) applies to plans created from now on. The same settings ` +
      'as `npm run support -- payment-plans:settings`.',
    body: paymentPlanSettingsBody,
    response: paymentPlanSettingsSchema,
    handler: ({ principal, body }) => putPaymentPlanSettings(prisma, principal.accountId, body),
  });

  api.route({
    method: 'post',
    path: '/payment-plans',
    tag,
    guard: createGuard,
    summary: 'Create a payment plan',
    description:
      'Splits total_amount into installments_count integer installments (the remainder cents go to the first installments, ' +
      'one each). Starts `pending`; with payment_method, installment 1 (the deposit) is charged at once and the rest on their ' +
      'dates; without one, collect the deposit with POST /payment-plans/{id}/deposit/terminal (or /payments). Clients poll GET.',
    body: createPaymentPlanBody,
    status: 201,
    response: paymentPlanSchema,
    errors: planErrors,
    handler: ({ principal, body, idempotencySeed }) =>
      createPaymentPlan({ prisma, temporal, taskQueue }, principal.accountId, body, { idempotencySeed }),
  });

  api.route({
    method: 'get',
    path: '/payment-plans',
    tag,
    guard,
    summary: 'List payment plans, newest first (filters: customer, status; a page, or after/before a cursor)',
    query: listPaymentPlansQuery,
    response: pageSchema(paymentPlanSchema),
    errors: [403, 404],
    handler: ({ principal, query }) => listPaymentPlans(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/payment-plans/{id}',
    tag,
    guard,
    summary: 'Retrieve a payment plan (deposit.attempt shows a terminal deposit in progress)',
    params: planIdParams,
    response: paymentPlanSchema,
    errors: [403, 404],
    handler: ({ principal, params }) => getPaymentPlan(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'get',
    path: '/payment-plans/{id}/installments',
    tag,
    guard,
    summary: "List a plan's installments, in order",
    params: planIdParams,
    query: pageQuery,
    response: pageSchema(installmentSchema),
    errors: [403, 404],
    handler: ({ principal, params, query }) => listInstallments(prisma, principal.accountId, params.id, query),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/cancel',
    tag,
    guard,
    summary: 'Cancel a payment plan (update cancelPlan)',
    description:
      'No further charges; unpaid installments are canceled; a sale waiting on a terminal is asked to cancel. 409 when completed or canceled.',
    params: planIdParams,
    response: paymentPlanSchema,
    errors: planErrors,
    handler: ({ principal, params }) => cancelPaymentPlan(actionDeps, principal.accountId, params.id),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/deposit/terminal',
    tag,
    guard,
    summary: 'Send the deposit (installment 1) to a card terminal',
    description:
      'The sale waits for the customer (deposit.attempt.state `waiting`); when the terminal reports, the outcome is recorded ' +
      'and an approved card is stored for the remaining installments. Clients poll GET /payment-plans/{id}.',
    params: planIdParams,
    body: depositTerminalBody,
    status: 202,
    response: paymentPlanSchema,
    errors: planErrors,
    handler: ({ principal, params, body }) =>
      sendDepositToTerminal(actionDeps, principal.accountId, params.id, body.terminal),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/deposit',
    tag,
    guard,
    summary: 'Continue a terminal deposit that is `resolving` or `approved_no_credential` (update resolveDeposit)',
    description:
      "`resolving`: the outcome the terminal's processor recorded for the sale, asked when no `outcome` is given (400 " +
      '`parameter_missing` on `outcome` when the processor has none), or the `outcome` known from elsewhere. Still ' +
      '`waiting`: give the known `outcome`. `approved_no_credential` (charged, card not kept): give ' +
      '`payment_method` (a card attached to the customer, stored for the remaining installments) or `external: true` (they are ' +
      'collected outside the service). Approved without either leaves the deposit `approved_no_credential`.',
    params: planIdParams,
    body: resolveTerminalBody,
    response: paymentPlanSchema,
    errors: planErrors,
    handler: ({ principal, params, body }) => resolveDeposit(actionDeps, principal.accountId, params.id, body),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/deposit/cancel',
    tag,
    guard,
    summary: 'Ask the terminal to cancel the waiting deposit sale (update cancelDeposit)',
    description:
      'The attempt stays `waiting` with cancel_requested until the terminal reports the cancellation; then it is `cancelled`.',
    params: planIdParams,
    status: 202,
    response: paymentPlanSchema,
    errors: planErrors,
    handler: ({ principal, params }) => cancelDeposit(actionDeps, principal.accountId, params.id),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/payments',
    tag,
    guard,
    summary: 'Pay what is owed: charge a stored method, record an external payment, or take it on a terminal',
    description:
      'Pays every overdue installment, or the next one when nothing is overdue. payment_method: a pm_ id attached to the ' +
      "customer (the plan's card when absent; save_payment_method keeps it for the next installments); external: true records " +
      'money collected elsewhere (no charge); payment_method {type: "terminal", terminal} sends it to a terminal (status ' +
      '`processing`, terminal.state `waiting`; poll GET .../payments/{payment_id}). A decline answers the failed payment.',
    params: planIdParams,
    body: createPlanPaymentBody,
    status: 201,
    response: planPaymentSchema,
    errors: [403, 404, 409, 502],
    handler: ({ principal, params, body }) => payPlan(actionDeps, principal.accountId, params.id, body),
  });

  api.route({
    method: 'get',
    path: '/payment-plans/{id}/payments',
    tag,
    guard,
    summary: "List a plan's payments, newest first",
    params: planIdParams,
    query: pageQuery,
    response: pageSchema(planPaymentSchema),
    errors: [403, 404],
    handler: ({ principal, params, query }) => listPlanPayments(prisma, principal.accountId, params.id, query),
  });

  api.route({
    method: 'get',
    path: '/payment-plans/{id}/payments/{payment_id}',
    tag,
    guard,
    summary: 'Retrieve a payment of a plan (terminal.state for terminal payments)',
    params: planPaymentParams,
    response: planPaymentSchema,
    errors: [403, 404],
    handler: ({ principal, params }) => getPlanPayment(prisma, principal.accountId, params.id, params.payment_id),
  });

  api.route({
    method: 'get',
    path: '/terminal-payments',
    tag,
    guard,
    summary: 'Terminal payments not settled yet (waiting, resolving, approved_no_credential), oldest first',
    description:
      'What support acts on (resolve or cancel through the plan payment endpoints); the same list as `npm run support -- terminal:stuck`. At most 500.',
    query: openTerminalPaymentsQuery,
    response: z.object({ data: z.array(openTerminalPaymentSchema) }),
    errors: [403],
    handler: ({ principal, query }) => listStuckTerminalPayments(prisma, principal.accountId, query.older_than_minutes),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/payments/{payment_id}/resolve',
    tag,
    guard,
    summary:
      'Continue a terminal payment that is `resolving`, `approved_no_credential` or still `waiting` (update resolveTerminalPayment)',
    description: 'Same body and rules as POST /payment-plans/{id}/deposit. Answers the payment.',
    params: planPaymentParams,
    body: resolveTerminalBody,
    response: planPaymentSchema,
    errors: planErrors,
    handler: ({ principal, params, body }) =>
      resolvePlanPayment(actionDeps, principal.accountId, params.id, params.payment_id, body),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/payments/{payment_id}/cancel',
    tag,
    guard,
    summary: 'Ask the terminal to cancel a waiting sale (update cancelTerminalPayment)',
    description:
      'Answers 202 with the payment (cancel_requested); it ends `cancelled` when the terminal reports it. Clients poll GET.',
    params: planPaymentParams,
    status: 202,
    response: planPaymentSchema,
    errors: planErrors,
    handler: ({ principal, params }) =>
      cancelPlanPayment(actionDeps, principal.accountId, params.id, params.payment_id),
  });

  api.route({
    method: 'post',
    path: '/payment-plans/{id}/payments/{payment_id}/refund',
    tag,
    guard,
    summary: 'Refund a payment of a plan, fully or partly',
    description:
      "Answers the refund transaction (negative amount, source_transaction the payment's transaction); records " +
      'payment_plan.payment_refunded. A stored-method or automatic charge is refunded at the gateway; a terminal sale is ' +
      "refunded against the sale's transaction at once. The installments it paid stay paid (the plan counts amount_refunded). " +
      'More than what is left: 400 `amount`; a payment not succeeded, or external (collected outside the service): 409.',
    params: planPaymentParams,
    body: refundPlanPaymentBody,
    status: 201,
    response: transactionSchema,
    errors: [403, 404, 409, 502],
    handler: ({ principal, params, body, idempotencyKey }) =>
      refundPaymentOfPlan(actionDeps, principal.accountId, params.id, params.payment_id, {
        amount: body.amount,
        attemptKey: idempotencyKey,
      }),
  });
}
