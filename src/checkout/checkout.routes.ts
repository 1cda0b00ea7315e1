import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { checkoutSessionIdParams, checkoutSessionSchema, createCheckoutSessionBody } from './checkout.schemas';
import { createCheckoutSession, getCheckoutSession } from './checkout.service';

export function registerCheckoutRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Hosted checkout';

  api.route({
    method: 'post',
    path: '/checkout/sessions',
    tag,
    summary: 'A hosted checkout page for prices: subscribe (recurring prices) or pay (one-time prices)',
    description:
      'The page takes name, email, address and card, creates the customer when none is given, saves the card, then creates ' +
      'the subscription (with trial_days) or pays an invoice of the one-time prices, and sends the customer to success_url. ' +
      'It completes once and expires 24 h after creation. Prices of another account: 404 naming the item; recurring and ' +
      'one-time prices together: 400; more than 99,999,999 cents charged at once: 400 amount_too_large naming the item ' +
      'or items.',
    body: createCheckoutSessionBody,
    status: 201,
    response: checkoutSessionSchema,
    errors: [404],
    handler: ({ principal, body }) => createCheckoutSession(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/checkout/sessions/{id}',
    tag,
    summary: 'Retrieve a checkout session: its status, and the customer, subscription or invoice it made',
    params: checkoutSessionIdParams,
    response: checkoutSessionSchema,
    errors: [404],
    handler: ({ principal, params }) => getCheckoutSession(prisma, principal.accountId, params.id),
  });
}
