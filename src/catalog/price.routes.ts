import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import {
  createPriceBody,
  listPricesQuery,
  priceIdParams,
  priceSchema,
  updateActivePriceBody,
  updateInactivePriceBody,
} from './price.schemas';
import {
  createPrice,
  deletePrice,
  findPrice,
  listPrices,
  updateInactivePrice,
  updatePriceDescription,
} from './price.service';

/** Response header listing the PATCH fields that were not applied because a subscription uses the price. */
export const IGNORED_FIELDS_HEADER = 'x-ignored-fields';

export function registerPriceRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Prices';

  api.route({
    method: 'post',
    path: '/prices/{id}',
    tag,
    summary: 'Create a price for an existing product (the path id is the product)',
    params: priceIdParams,
    body: createPriceBody,
    status: 201,
    response: priceSchema,
    errors: [404],
    handler: ({ principal, params, body }) => createPrice(prisma, principal.accountId, params.id, body),
  });

  api.route({
    method: 'get',
    path: '/prices',
    tag,
    summary: 'List prices, newest first',
    query: listPricesQuery,
    response: pageSchema(priceSchema),
    handler: ({ principal, query }) => listPrices(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/prices/{id}',
    tag,
    summary: 'Retrieve a price',
    params: priceIdParams,
    response: priceSchema,
    errors: [404],
    handler: ({ principal, params }) => findPrice(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'delete',
    path: '/prices/{id}',
    tag,
    summary: 'Delete a price that was never billed and that no subscription uses (409 otherwise)',
    params: priceIdParams,
    response: z.object({ id: z.string(), object: z.literal('price'), deleted: z.literal(true) }),
    errors: [404, 409],
    handler: ({ principal, params }) => deletePrice(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'patch',
    path: '/prices/{id}/inactive',
    tag,
    summary: 'Update a price that was never billed',
    description:
      'Changes currency, unit_amount, type, recurring, tax_behavior and description (only those given). When a subscription ' +
      `uses the price only \`description\` is applied: the other fields given are not, and the \`${IGNORED_FIELDS_HEADER}\` ` +
      'response header lists them (comma-separated). A price that has been billed (active) answers 409: use PATCH /prices/{id}/active.',
    params: priceIdParams,
    body: updateInactivePriceBody,
    response: priceSchema,
    errors: [404, 409],
    handler: async ({ principal, params, body, res }) => {
      const { price, ignored } = await updateInactivePrice(prisma, principal.accountId, params.id, body);
      if (ignored.length > 0) res.setHeader(IGNORED_FIELDS_HEADER, ignored.join(','));
      return price;
    },
  });

  api.route({
    method: 'patch',
    path: '/prices/{id}/active',
    tag,
    summary: "Update a price's description (any price); the active flag never changes here",
    params: priceIdParams,
    body: updateActivePriceBody,
    response: priceSchema,
    errors: [404],
    handler: ({ principal, params, body }) => updatePriceDescription(prisma, principal.accountId, params.id, body),
  });
}
