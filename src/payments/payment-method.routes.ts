import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { customerIdParams } from '../customers';
import {
  attachPaymentMethodBody,
  createPaymentMethodBody,
  customerPaymentMethodsQuery,
  listPaymentMethodsQuery,
  paymentMethodId,
  paymentMethodIdParams,
  paymentMethodSchema,
} from './payment-method.schemas';
import {
  attachPaymentMethod,
  createPaymentMethod,
  detachPaymentMethod,
  getCustomerPaymentMethod,
  getPaymentMethod,
  listCustomerPaymentMethods,
  listPaymentMethods,
} from './payment-method.service';

export function registerPaymentMethodRoutes(api: Api, { prisma, gateways }: AppDeps): void {
  const tag = 'Payment methods';

  api.route({
    method: 'post',
    path: '/payment-methods',
    tag,
    summary: 'Create a payment method from a test card or US bank account (test mode)',
    description:
      'With `customer`, the method is attached at once; a card the customer already has answers the saved method.',
    body: createPaymentMethodBody,
    status: 201,
    response: paymentMethodSchema,
    errors: [404],
    handler: ({ principal, body }) => createPaymentMethod(prisma, gateways, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/payment-methods',
    tag,
    summary: 'List the payment methods of the account, newest first',
    query: listPaymentMethodsQuery,
    response: pageSchema(paymentMethodSchema),
    handler: ({ principal, query }) => listPaymentMethods(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/payment-methods/{id}',
    tag,
    summary: 'Retrieve a payment method',
    params: paymentMethodIdParams,
    response: paymentMethodSchema,
    errors: [404],
    handler: ({ principal, params }) => getPaymentMethod(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'post',
    path: '/payment-methods/{id}/attach',
    tag,
    summary: 'Attach a payment method to a customer',
    description:
      "The customer's first method becomes its default; `default: true` makes this one the default. A card whose fingerprint " +
      'the customer already has answers the saved method (and payment_method.attached carries it). A method detached before ' +
      '(or whose customer was deleted) can never be attached again: 409 payment_method_detached.',
    params: paymentMethodIdParams,
    body: attachPaymentMethodBody,
    response: paymentMethodSchema,
    errors: [404, 409],
    handler: ({ principal, params, body }) =>
      attachPaymentMethod(prisma, gateways, principal.accountId, params.id, body),
  });

  api.route({
    method: 'post',
    path: '/payment-methods/{id}/detach',
    tag,
    summary: 'Detach a payment method from its customer',
    description:
      "Detaching the default makes the customer's earliest-attached remaining method the default. A detached method is never " +
      'attached or charged again (enter the card again for a new one).',
    params: paymentMethodIdParams,
    body: z.strictObject({}).optional(),
    response: paymentMethodSchema,
    errors: [404, 409],
    handler: ({ principal, params }) => detachPaymentMethod(prisma, gateways, principal.accountId, params.id),
  });

  api.route({
    method: 'get',
    path: '/customers/{externalKey}/payment-methods',
    tag,
    summary: "List a customer's payment methods (the default first)",
    params: customerIdParams,
    query: customerPaymentMethodsQuery,
    response: pageSchema(paymentMethodSchema),
    errors: [404],
    handler: ({ principal, params, query }) =>
      listCustomerPaymentMethods(prisma, principal.accountId, params.externalKey, query),
  });

  api.route({
    method: 'get',
    path: '/customers/{externalKey}/payment-methods/{id}',
    tag,
    summary: 'Retrieve one payment method of a customer',
    params: customerIdParams.extend({ id: paymentMethodId }),
    response: paymentMethodSchema,
    errors: [404],
    handler: ({ principal, params }) =>
      getCustomerPaymentMethod(prisma, principal.accountId, params.externalKey, params.id),
  });
}
