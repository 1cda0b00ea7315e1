import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { presentProcessorTestCard, reportTerminalOutcome, type TerminalReport } from '../payment-plans';
import { toPaymentObject } from '../payment-plans';
import { planPaymentSchema } from '../payment-plans';
import { notifyPlanUpdated } from '../payment-plans';
import {
  createTerminalBody,
  listTerminalsQuery,
  presentCardBody,
  terminalIdParams,
  terminalSchema,
  type PresentCardInput,
} from './terminal.schemas';
import { createTerminal, getTerminal, listTerminals } from './terminal.service';
import { testModeEnabled } from '../lib/test-mode';

const DEFAULT_TEST_CARD = '4242424242424242';

function reportOf(input: PresentCardInput): TerminalReport {
  const card = {
    number: input.card?.number ?? DEFAULT_TEST_CARD,
    exp_month: input.card?.exp_month ?? 12,
    exp_year: input.card?.exp_year ?? new Date().getUTCFullYear() + 3,
  };
  switch (input.outcome) {
    case 'approved':
      return { outcome: 'approved', card };
    case 'approved_no_credential':
      return { outcome: 'approved_no_credential', card };
    case 'declined':
      return { outcome: 'declined', card };
    case 'lost':
      return { outcome: 'lost', processorOutcome: input.processor_outcome ?? 'approved' };
  }
}

export function registerTerminalRoutes(api: Api, deps: AppDeps): void {
  const { prisma } = deps;
  const tag = 'Terminals';

  api.route({
    method: 'post',
    path: '/terminals',
    tag,
    summary: 'Register a card terminal (simulated in test mode)',
    body: createTerminalBody,
    status: 201,
    response: terminalSchema,
    handler: ({ principal, body }) => createTerminal(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/terminals',
    tag,
    summary: 'List the terminals of the account, newest first',
    query: listTerminalsQuery,
    response: pageSchema(terminalSchema),
    handler: ({ principal, query }) => listTerminals(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/terminals/{id}',
    tag,
    summary: 'Retrieve a terminal and the sale waiting on it',
    params: terminalIdParams,
    response: terminalSchema,
    errors: [404],
    handler: ({ principal, params }) => getTerminal(prisma, principal.accountId, params.id),
  });

  if (!testModeEnabled()) return;

  // The simulated terminal: these play the customer and the device. The terminal's report is
  // recorded at once, then the plan's workflow is told (it never polls a terminal).
  const report = async (accountId: string, terminalId: string, outcome: TerminalReport) => {
    const payment = await reportTerminalOutcome(prisma, accountId, terminalId, outcome);
    await notifyPlanUpdated(deps.temporal, payment.planId);
    return toPaymentObject(payment);
  };

  api.route({
    method: 'post',
    path: '/test-helpers/terminals/{id}/present-card',
    tag: 'Test helpers',
    summary: 'Test mode: the customer presents a card to the sale waiting on the terminal',
    description:
      "outcome approved: paid, the card is saved for the customer (and becomes the plan's card if it has none); " +
      'approved_no_credential: paid, no card kept; declined: nothing paid; lost: the sale ends but its outcome never ' +
      "reaches the service (the payment goes `resolving`); the terminal's processor keeps processor_outcome (default approved), " +
      'which POST /payment-plans/{id}/deposit and .../resolve without an outcome ask for. Answers the payment-plan payment. ' +
      '409 when no sale waits.',
    params: terminalIdParams,
    body: presentCardBody,
    response: planPaymentSchema,
    errors: [404, 409],
    handler: async ({ principal, params, body }) => {
      // A processor's reader is given the processor's own test card; its outcome comes with the processor's event.
      const waiting = await presentProcessorTestCard(prisma, principal.accountId, params.id);
      return waiting ? toPaymentObject(waiting) : report(principal.accountId, params.id, reportOf(body));
    },
  });

  api.route({
    method: 'post',
    path: '/test-helpers/terminals/{id}/report-cancel',
    tag: 'Test helpers',
    summary: 'Test mode: the terminal reports that its waiting sale was cancelled',
    description:
      'Whether or not a cancellation was requested (the clerk may cancel on the device). 409 when no sale waits.',
    params: terminalIdParams,
    response: planPaymentSchema,
    errors: [404, 409],
    handler: ({ principal, params }) => report(principal.accountId, params.id, { outcome: 'cancelled' }),
  });
}
