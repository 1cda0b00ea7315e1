import { z } from 'zod';
import { paginationQuery } from '../http/pagination';
import { nameText, resourceId, unixTime } from '../http/validation';
import { description, priceAttributes, withPriceRules } from './price.schemas';
import { commaSeparatedIds, createdRange, jsonTextFilter } from './search-filter';
import { ALLOWED_TAX_CODES, DEFAULT_TAX_CODE } from './tax-codes';
import { updatedMsField } from '../lib/object-version';

export const MAX_PRODUCT_NAME = 100;
export const MAX_PRODUCTS_PAGE = 50;

const TAX_CODE_PATTERN = /^txcd_[a-zA-Z0-9]+$/;

/** Unique per account, case-insensitively (product.service.ts nameKey), after nameText's NFC and trim. */
export const productName = nameText(MAX_PRODUCT_NAME);

/** One of the spec's 637 codes (its ranges expanded): an enum in /openapi.json. */
export const taxCode = z
  .enum([...ALLOWED_TAX_CODES] as [string, ...string[]], {
    error: 'is not one of the allowed tax codes (see GET /products/taxCodes)',
  })
  .meta({ id: 'TaxCode', description: "One of the spec's allowed tax codes (GET /products/taxCodes names them)" });

/**
 * A tax code in a request; null stands for the default `txcd_00000000`. A union rather than `.nullable()`:
 * zod-to-openapi renders a nullable component as allOf [ref, string|null], which refuses null.
 */
export const taxCodeInput = z.union([taxCode, z.null()]).transform((value) => value ?? DEFAULT_TAX_CODE);

/**
 * POST /products: the product plus the attributes of its first price. `description` describes the
 * product (the price attribute of the same name cannot be told apart here; set it with PATCH /prices).
 */
export const createProductBody = withPriceRules(
  z.strictObject({
    ...priceAttributes,
    name: productName,
    tax_code: taxCodeInput.default(DEFAULT_TAX_CODE),
  }),
).meta({ id: 'ProductCreate' });

/** PATCH /products/{id}: only the fields given change (the spec's "required" on name applies when given). */
export const updateProductBody = z
  .strictObject({
    name: productName.optional(),
    description: description.nullable().optional(),
    tax_code: taxCodeInput.optional(),
  })
  .meta({ id: 'ProductUpdate' });

export const productSchema = z
  .object({
    id: z.string(),
    object: z.literal('product'),
    active: z.boolean(),
    created: unixTime,
    updated_ms: updatedMsField,
    default_price: z.string().nullable(),
    description: z.string().nullable(),
    name: z.string(),
    tax_code: taxCode,
    updated: z.number().int().min(0).nullable(),
  })
  .meta({ id: 'Product' });

export const productFilter = z.strictObject({
  active: z.boolean().optional(),
  tax_code: z.string().regex(TAX_CODE_PATTERN, 'must match ^txcd_[a-zA-Z0-9]+$').optional(),
  ids: commaSeparatedIds.optional(),
  created: createdRange.optional(),
});

export const listProductsQuery = z.strictObject({
  search: jsonTextFilter(
    productFilter,
    'Plain text matches name or description (case-insensitive); text starting with { is a JSON filter with keys active (boolean), tax_code, ids (comma-separated product ids), created {gt, gte, lt, lte} (Unix seconds)',
  ),
  ...paginationQuery(MAX_PRODUCTS_PAGE),
});

export const taxCodesQuery = z.strictObject({
  search: z.string().max(200).optional().describe('Matches tax codes or category names (case-insensitive)'),
});

export const productIdParams = z.strictObject({ id: resourceId });

export type CreateProductInput = z.output<typeof createProductBody>;
export type UpdateProductInput = z.output<typeof updateProductBody>;
export type ProductObject = z.output<typeof productSchema>;
export type ListProductsQuery = z.output<typeof listProductsQuery>;
export type ProductFilter = z.output<typeof productFilter>;
