import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import {
  createTaxRateBody,
  listTaxRatesQuery,
  TAX_TYPES,
  taxRateIdParams,
  taxRateSchema,
  updateTaxRateBody,
} from './tax-rate.schemas';
import { createTaxRate, getTaxRate, listTaxRates, updateTaxRate } from './tax-rate.service';

export function registerTaxRateRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Tax rates';

  api.route({
    method: 'post',
    path: '/taxRates',
    tag,
    summary: 'Create a tax rate',
    description:
      '`percentage` is 0 to 100 with at most 4 decimals; `inclusive` says whether prices already contain the tax. ' +
      `\`tax_type\` is one of ${TAX_TYPES.join(', ')} (default Custom, which needs \`display_name\`). \`country\` is US.`,
    body: createTaxRateBody,
    status: 201,
    response: taxRateSchema,
    handler: ({ principal, body }) => createTaxRate(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/taxRates',
    tag,
    summary: 'List tax rates, newest first',
    query: listTaxRatesQuery,
    response: pageSchema(taxRateSchema),
    handler: ({ principal, query }) => listTaxRates(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/taxRates/{id}',
    tag,
    summary: 'Retrieve a tax rate',
    params: taxRateIdParams,
    response: taxRateSchema,
    errors: [404],
    handler: ({ principal, params }) => getTaxRate(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'patch',
    path: '/taxRates/{id}',
    tag,
    summary: 'Update a tax rate: only the fields given change',
    description: 'percentage, inclusive and country are fixed once created (invoices rely on them).',
    params: taxRateIdParams,
    body: updateTaxRateBody,
    response: taxRateSchema,
    errors: [404],
    handler: ({ principal, params, body }) => updateTaxRate(prisma, principal.accountId, params.id, body),
  });
}
