import { Prisma } from '../generated/prisma/client';
import { currentTime } from '../lib/clock-time';
import type { Db, Tx } from '../db/prisma';
import { badRequest, conflict, orNotFound } from '../http/errors';
import { pageEnvelope, pageWindow, type Page } from '../http/pagination';
import { recordEvent } from '../lib/events';
import { newId } from '../lib/ids';
import { insertPrice } from './price.service';
import type { CreateProductInput, ListProductsQuery, ProductObject, UpdateProductInput } from './product.schemas';
import {
  deleteProductAndPrices,
  findProductRow,
  insertProduct,
  lockProduct,
  lockProductPrices,
  readProductPage,
  readProductPrices,
  subscriptionItemCount,
  toPriceObject,
  toProductObject,
  unpaidInvoiceLineCount,
  updateProductRow,
} from './records';
import { createdWhere } from './search-filter';
import { containsText } from '../db/text-search';

/** Names are unique per account regardless of case and Unicode composition ("Pro" and "pro" clash). */
export function productNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/** The unique index (account_id, name_key) is the real guard; this turns its violation into decisions.md §2's 400. */
async function withUniqueName<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (name !== undefined && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      throw badRequest(
        `A product named '${name}' already exists in this account (names are compared case-insensitively).`,
        'name',
        'name_taken',
      );
    }
    throw error;
  }
}

export async function createProduct(prisma: Db, accountId: string, input: CreateProductInput): Promise<ProductObject> {
  return withUniqueName(input.name, () =>
    prisma.$transaction(async (tx) => {
      const priceId = newId('price');
      // One moment for both: the default price is created with its product, and says so.
      const createdAt = currentTime();
      const product = await insertProduct(tx, {
        id: newId('product'),
        accountId,
        name: input.name,
        nameKey: productNameKey(input.name),
        description: input.description ?? null,
        taxCode: input.tax_code,
        defaultPriceId: priceId,
        createdAt,
      });
      const price = await insertPrice(tx, accountId, product.id, { ...input, description: null }, priceId, createdAt);
      const object = toProductObject(product);
      await recordEvent(tx, accountId, 'product.created', object);
      await recordEvent(tx, accountId, 'price.created', toPriceObject(price));
      return object;
    }),
  );
}

function searchWhere(query: ListProductsQuery): Prisma.ProductWhereInput {
  const { text, filter } = query.search;
  const where: Prisma.ProductWhereInput = {};
  if (text) {
    where.OR = [{ name: containsText(text) }, { description: containsText(text) }];
  }
  if (filter) {
    if (filter.active !== undefined) where.active = filter.active;
    if (filter.tax_code !== undefined) where.taxCode = filter.tax_code;
    if (filter.ids !== undefined) where.id = { in: filter.ids };
    if (filter.created !== undefined) where.createdAt = createdWhere(filter.created);
  }
  return where;
}

export async function listProducts(
  prisma: Db,
  accountId: string,
  query: ListProductsQuery,
): Promise<Page<ProductObject>> {
  const where = { ...searchWhere(query), accountId };
  const { total, products } = await readProductPage(prisma, where, pageWindow(query));
  return pageEnvelope(products.map(toProductObject), total, query);
}

export async function getProduct(prisma: Db, accountId: string, id: string): Promise<ProductObject> {
  return toProductObject(orNotFound(await findProductRow(prisma, accountId, id), 'product', id));
}

/** Only the fields given change; a body with none changes nothing (no event, `updated` kept). */
export async function updateProduct(
  prisma: Db,
  accountId: string,
  id: string,
  input: UpdateProductInput,
): Promise<ProductObject> {
  return withUniqueName(input.name, () =>
    prisma.$transaction(async (tx) => {
      const current = orNotFound(await findProductRow(tx, accountId, id), 'product', id);
      const data: Prisma.ProductUpdateInput = {};
      if (input.name !== undefined) Object.assign(data, { name: input.name, nameKey: productNameKey(input.name) });
      if (input.description !== undefined) data.description = input.description;
      if (input.tax_code !== undefined) data.taxCode = input.tax_code;
      if (Object.keys(data).length === 0) return toProductObject(current);
      const product = await updateProductRow(tx, current.id, { ...data, updatedAt: currentTime() });
      const object = toProductObject(product);
      await recordEvent(tx, accountId, 'product.updated', object);
      return object;
    }),
  );
}

/**
 * Permanent. Refused (409) while any of the product's prices was billed or is used by a
 * subscription, since invoices and subscriptions keep naming them; otherwise the product and all of
 * its (never billed) prices go in one transaction, with a price.deleted per price, then product.deleted.
 */
export async function deleteProduct(
  prisma: Db,
  accountId: string,
  id: string,
): Promise<{ id: string; object: 'product'; deleted: true }> {
  return prisma.$transaction(async (tx: Tx) => {
    const product = orNotFound(await lockProduct(tx, accountId, id, 'update'), 'product', id);
    await lockProductPrices(tx, id);
    const prices = await readProductPrices(tx, id);
    const billed = prices.filter((price) => price.billedAt !== null).map((price) => price.id);
    if (billed.length > 0) {
      throw conflict(
        `Product ${id} cannot be deleted: its price(s) ${billed.join(', ')} have been billed.`,
        'product_has_billed_prices',
      );
    }
    if (
      (await subscriptionItemCount(
        tx,
        accountId,
        prices.map((price) => price.id),
      )) > 0
    ) {
      throw conflict(`Product ${id} cannot be deleted: a subscription uses one of its prices.`, 'product_in_use');
    }
    if (
      (await unpaidInvoiceLineCount(
        tx,
        accountId,
        prices.map((price) => price.id),
      )) > 0
    ) {
      throw conflict(
        `Product ${id} cannot be deleted: one of its prices is on a draft or open invoice.`,
        'product_in_use',
      );
    }
    await deleteProductAndPrices(tx, id);
    for (const price of prices) await recordEvent(tx, accountId, 'price.deleted', toPriceObject(price));
    await recordEvent(tx, accountId, 'product.deleted', toProductObject(product));
    return { id, object: 'product' as const, deleted: true as const };
  });
}
