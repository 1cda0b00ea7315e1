import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import {
  createProductBody,
  listProductsQuery,
  MAX_PRODUCTS_PAGE,
  productIdParams,
  productSchema,
  taxCodesQuery,
  updateProductBody,
} from './product.schemas';
import { createProduct, deleteProduct, getProduct, listProducts, updateProduct } from './product.service';
import { searchTaxCodes } from './tax-codes';

export function registerProductRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Products';

  // Declared before /products/{id} so that "taxCodes" is not taken for a product id.
  api.route({
    method: 'get',
    path: '/products/taxCodes',
    tag,
    summary: 'Tax codes allowed for products, with their category names',
    description:
      'A map of tax code (txcd_ plus 8 digits) to category name; `search` keeps the codes whose code or name contains it.',
    query: taxCodesQuery,
    response: z.record(z.string(), z.string()),
    handler: async ({ query }) => searchTaxCodes(query.search),
  });

  api.route({
    method: 'get',
    path: '/products',
    tag,
    summary: 'List products, newest first',
    description: `\`search\` is plain text or a JSON filter (see the parameter); \`take\` is 1 to ${MAX_PRODUCTS_PAGE}.`,
    query: listProductsQuery,
    response: pageSchema(productSchema),
    handler: ({ principal, query }) => listProducts(prisma, principal.accountId, query),
  });

  api.route({
    method: 'post',
    path: '/products',
    tag,
    summary: 'Create a product and its first (default) price',
    description:
      'Takes the price attributes plus `name` (unique in the account, compared case-insensitively) and `tax_code`. ' +
      '`description` describes the product; the first price has no description until PATCH /prices/{id}/inactive sets one.',
    body: createProductBody,
    status: 201,
    response: productSchema,
    handler: ({ principal, body }) => createProduct(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/products/{id}',
    tag,
    summary: 'Retrieve a product',
    params: productIdParams,
    // The contract gives /products/{id} its pattern with 400 (docs/api.md "Conventions", ids in paths).
    malformedPath: 400,
    response: productSchema,
    errors: [404],
    handler: ({ principal, params }) => getProduct(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'patch',
    path: '/products/{id}',
    tag,
    summary: 'Update a product: only the fields given change',
    description: '`tax_code: null` restores the default txcd_00000000; `description: null` clears it.',
    params: productIdParams,
    // The contract gives /products/{id} its pattern with 400 (docs/api.md "Conventions", ids in paths).
    malformedPath: 400,
    body: updateProductBody,
    response: productSchema,
    errors: [404],
    handler: ({ principal, params, body }) => updateProduct(prisma, principal.accountId, params.id, body),
  });

  api.route({
    method: 'delete',
    path: '/products/{id}',
    tag,
    summary: 'Delete a product and its prices, permanently',
    description:
      'Refused with 409 while any of its prices has been billed or is used by a subscription. Otherwise the product and ' +
      'all its prices are deleted together (price.deleted for each, then product.deleted).',
    params: productIdParams,
    // The contract gives /products/{id} its pattern with 400 (docs/api.md "Conventions", ids in paths).
    malformedPath: 400,
    response: z.object({ id: z.string(), object: z.literal('product'), deleted: z.literal(true) }),
    errors: [404, 409],
    handler: ({ principal, params }) => deleteProduct(prisma, principal.accountId, params.id),
  });
}
