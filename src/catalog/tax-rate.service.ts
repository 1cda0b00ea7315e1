import type { Prisma, TaxRate } from '../generated/prisma/client';
import { currentTime } from '../lib/clock-time';
import type { Db, Tx } from '../db/prisma';
import { notFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import {
  TAX_TYPE_DISPLAY_NAMES,
  type CreateTaxRateInput,
  type ListTaxRatesQuery,
  type TaxRateObject,
  type TaxType,
  type UpdateTaxRateInput,
} from './tax-rate.schemas';
import { updatedMsOf } from '../lib/object-version';
import type { Queryable } from '../db/sql';
import { insertTaxRate, readTaxRatePage, readTaxRateRow, readTaxRates, updateTaxRateRow } from './records';
// Shared with the subscription module's reads (which import them from here).
export { TAX_RATE_COLUMNS, taxRateOfRow } from './records';

const PPM_PER_PERCENT = 10_000;

export function toTaxRateObject(rate: TaxRate): TaxRateObject {
  return {
    id: rate.id,
    object: 'tax_rate',
    active: rate.active,
    country: rate.country,
    created: toUnixSeconds(rate.createdAt),
    updated_ms: updatedMsOf(rate),
    // The contract types it a string: absent while unset, never null (docs/decisions.md §18).
    ...(rate.description !== null ? { description: rate.description } : {}),
    display_name: rate.displayName,
    inclusive: rate.inclusive,
    // ppm / 10000 is the percentage with at most 4 decimals; the division is exact enough to round-trip.
    percentage: rate.ratePpm / PPM_PER_PERCENT,
    tax_type: rate.taxType as TaxType,
  };
}

async function findTaxRateRow(db: Db | Tx, accountId: string, id: string): Promise<TaxRate> {
  const rate = await readTaxRateRow(db, accountId, id);
  if (!rate) throw notFound('tax rate', id);
  return rate;
}

/**
 * Tax rates of the account, in the order of `ids` (one entry per id given), inactive ones included:
 * the caller decides whether an inactive rate may be applied. 404 names the first unknown id. Each
 * object fits computeTax's TaxRateForCalc ({id, percentage, inclusive}).
 */
export async function findTaxRates(db: Queryable, accountId: string, ids: string[]): Promise<TaxRateObject[]> {
  if (ids.length === 0) return [];
  return taxRatesInOrder(await readTaxRates(db, accountId, [...new Set(ids)]), ids);
}

/** findTaxRates on rows already read (the account's, any order, extra ones ignored); the 404 names `param`. */
export function taxRatesInOrder(rows: TaxRate[], ids: string[], param?: string): TaxRateObject[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => {
    const row = byId.get(id);
    if (!row) throw notFound('tax rate', id, param);
    return toTaxRateObject(row);
  });
}

export async function createTaxRate(prisma: Db, accountId: string, input: CreateTaxRateInput): Promise<TaxRateObject> {
  return prisma.$transaction(async (tx) => {
    const rate = await insertTaxRate(tx, {
      id: newId('taxRate'),
      accountId,
      // Custom always has a display name (schema); the other types fall back to their usual name.
      displayName: input.display_name ?? TAX_TYPE_DISPLAY_NAMES[input.tax_type] ?? input.tax_type,
      description: input.description ?? null,
      ratePpm: Math.round(input.percentage * PPM_PER_PERCENT),
      inclusive: input.inclusive,
      active: input.active,
      country: input.country,
      taxType: input.tax_type,
      createdAt: currentTime(),
    });
    const object = toTaxRateObject(rate);
    await recordEvent(tx, accountId, 'tax.created', object);
    return object;
  });
}

export async function listTaxRates(
  prisma: Db,
  accountId: string,
  query: ListTaxRatesQuery,
): Promise<Page<TaxRateObject>> {
  const { total, rates } = await readTaxRatePage(
    prisma,
    accountId,
    { active: query.active, inclusive: query.inclusive },
    pageWindow(query),
  );
  return pageEnvelope(rates.map(toTaxRateObject), total, query);
}

export async function getTaxRate(prisma: Db, accountId: string, id: string): Promise<TaxRateObject> {
  return toTaxRateObject(await findTaxRateRow(prisma, accountId, id));
}

/** Only the fields given change; a body with none changes nothing (no event). */
export async function updateTaxRate(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateTaxRateInput,
): Promise<TaxRateObject> {
  return prisma.$transaction(async (tx) => {
    const current = await findTaxRateRow(tx, accountId, id);
    const data: Prisma.TaxRateUpdateInput = {};
    if (input.tax_type !== undefined) data.taxType = input.tax_type;
    if (input.display_name !== undefined) data.displayName = input.display_name;
    if (input.description !== undefined) data.description = input.description;
    if (input.active !== undefined) data.active = input.active;
    if (Object.keys(data).length === 0) return toTaxRateObject(current);
    const rate = await updateTaxRateRow(tx, current.id, { ...data, updatedAt: currentTime() });
    const object = toTaxRateObject(rate);
    await recordEvent(tx, accountId, 'tax.updated', object);
    return object;
  });
}
