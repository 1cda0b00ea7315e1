import { Prisma, type PaymentMethod } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import type { Queryable } from '../db/sql';
import {
  clearDefaultMethod,
  deleteDefaultMethod,
  findCustomerMethod,
  findSavedMethod,
  firstAttachedMethod,
  insertPaymentMethodRow,
  lockCustomerMethods,
  moveDefaultMethod,
  paymentMethodIdTaken,
  paymentMethodsPage,
  readCustomerMethods,
  readCustomerProcessorMethodIds,
  readDefaultMethodRow,
  readPaymentMethod,
  setDefaultMethod,
  updatePaymentMethodRow,
} from './payment-method.records';
import { findCustomer } from '../customers';
import { lockCustomer } from '../customers';
import { ApiError, badRequest, conflict, notFound } from '../http/errors';
import { readGatewayAccount } from '../accounts';
import type { Gateways } from './gateways';
import { pageEnvelope, pageWindow, type Page, type PageParams } from '../http/pagination';
import { recordEvent } from '../lib/events';
import { newId, newUuid } from '../lib/ids';
import { toUnixSeconds } from '../lib/time';
import { cardBrand, fingerprint } from './card-numbers';
import {
  GatewayRequestError,
  GatewayUnavailableError,
  type GatewayPaymentMethod,
  type PaymentGateway,
} from './gateway';
import type {
  AttachPaymentMethodInput,
  BillingDetails,
  CreatePaymentMethodInput,
  ListPaymentMethodsQuery,
  PaymentMethodObject,
} from './payment-method.schemas';
import { bankAccountTestBehavior, cardTestBehavior } from '../simulated-gateway';
import { updatedMsOf } from '../lib/object-version';

const TEST_BANK_NAMES: Record<string, string> = { '110000000': 'STRIPE TEST BANK' };

export function toPaymentMethodObject(method: PaymentMethod): PaymentMethodObject {
  const object: PaymentMethodObject = {
    id: method.id,
    object: 'payment_method',
    type: method.type,
    allow_redisplay: method.allowRedisplay,
    billing_details: method.billingDetails as BillingDetails,
    created: toUnixSeconds(method.createdAt),
    updated_ms: updatedMsOf(method),
    customer: method.customerId,
    livemode: method.livemode,
    metadata: (method.metadata as Record<string, string> | null) ?? {},
  };
  if (method.type === 'card') {
    object.card = {
      brand: method.cardBrand,
      last4: method.last4,
      walletType: method.walletType,
      exp_month: method.cardExpMonth!,
      exp_year: method.cardExpYear!,
      fingerprint: method.fingerprint,
    };
  } else {
    object.us_bank_account = {
      account_holder_type: method.bankAccountHolderType!,
      account_type: method.bankAccountType!,
      bank_name: method.bankName!,
      financial_connections_account: null,
      fingerprint: method.fingerprint,
      last4: method.last4,
      networks: { preferred: 'ach', supported: ['ach'] },
      routing_number: method.bankRoutingNumber!,
      status_details: {},
    };
  }
  return object;
}

/** What the gateway needs to charge a stored method. */
export function toGatewayPaymentMethod(method: PaymentMethod): GatewayPaymentMethod {
  return {
    id: method.id,
    accountId: method.accountId,
    type: method.type,
    customerId: method.customerId,
  };
}

// src/invoices imports these from here.
export { findDefaultPaymentMethod, readPaymentMethod } from './payment-method.records';

/** A payment method of the account, or 404 (also for another account's method). */
export async function findPaymentMethod(db: Queryable, accountId: string, id: string): Promise<PaymentMethod> {
  const method = await readPaymentMethod(db, accountId, id);
  if (!method) throw notFound('payment method', id);
  return method;
}

function billingDetails(input: CreatePaymentMethodInput['billing_details']): BillingDetails {
  const address = input.address ?? {};
  return {
    address: {
      city: address.city ?? null,
      country: address.country ?? null,
      line1: address.line1 ?? null,
      line2: address.line2 ?? null,
      postal_code: address.postal_code ?? null,
      state: address.state ?? null,
    },
    email: input.email ?? null,
    name: input.name,
    phone: input.phone ?? null,
  };
}

/**
 * The customer entered a card (or bank account) it has saved already: the saved method is kept (and
 * answered), with the expiry and billing details just entered, since a reissued card keeps its
 * number but not its expiry.
 */
async function refreshSavedMethod(
  tx: Tx,
  saved: PaymentMethod,
  entered: {
    cardExpMonth?: number | null;
    cardExpYear?: number | null;
    billingDetails: Prisma.InputJsonValue | Prisma.JsonValue;
  },
): Promise<PaymentMethod> {
  const data: Prisma.PaymentMethodUncheckedUpdateInput = {};
  if (saved.type === 'card' && entered.cardExpMonth && entered.cardExpYear) {
    if (entered.cardExpMonth !== saved.cardExpMonth) data.cardExpMonth = entered.cardExpMonth;
    if (entered.cardExpYear !== saved.cardExpYear) data.cardExpYear = entered.cardExpYear;
  }
  if (JSON.stringify(entered.billingDetails) !== JSON.stringify(saved.billingDetails)) {
    data.billingDetails = entered.billingDetails as Prisma.InputJsonValue;
  }
  if (Object.keys(data).length === 0) return saved;
  return updatePaymentMethodRow(tx, saved.id, data);
}

/** 409 for a method detached before: it can never be attached again (decisions.md §5). */
function detachedConflict(id: string) {
  return conflict(
    `Payment method ${id} was detached from its customer (or its customer was deleted) and can never be attached or charged again; ` +
      'create a new payment method with the card or bank account details.',
    'payment_method_detached',
  );
}

/**
 * Attaches inside the caller's transaction. A card (or bank account) whose fingerprint the customer
 * already has answers the saved method instead, and the event carries that one. The first method a
 * customer gets becomes the default; `makeDefault` moves the default. attached_at and detached_at are
 * the wall clock, as created_at is: a customer's cards are ordered by them, and the API's attach runs on
 * no customer's test clock while a hosted page's does.
 */
async function attachInTx(
  tx: Tx,
  accountId: string,
  method: PaymentMethod,
  customerId: string,
  makeDefault: boolean,
): Promise<PaymentMethod> {
  await lockCustomerMethods(tx, customerId);
  let attached: PaymentMethod;
  let changed = true;
  if (method.customerId === customerId) {
    attached = method;
    changed = false;
  } else {
    if (method.customerId) {
      throw conflict(
        `Payment method ${method.id} is attached to another customer; detach it first.`,
        'payment_method_attached_elsewhere',
      );
    }
    // A detached method is spent for good (decisions.md §5): the card details are entered again instead.
    if (method.detachedAt) throw detachedConflict(method.id);
    const saved = await findSavedMethod(tx, accountId, customerId, {
      fingerprint: method.fingerprint,
      type: method.type,
      exceptId: method.id,
    });
    attached = saved
      ? await refreshSavedMethod(tx, saved, method)
      : await updatePaymentMethodRow(tx, method.id, { customerId, attachedAt: new Date() });
  }
  const current = await readDefaultMethodRow(tx, accountId, customerId);
  if (!current || (makeDefault && current.paymentMethodId !== attached.id)) {
    await setDefaultMethod(tx, accountId, customerId, attached.id);
  }
  if (changed) await recordEvent(tx, accountId, 'payment_method.attached', toPaymentMethodObject(attached));
  return attached;
}

export async function createPaymentMethod(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  input: CreatePaymentMethodInput,
): Promise<PaymentMethodObject> {
  const account = await readGatewayAccount(prisma, accountId);
  if (!account) throw notFound('account', accountId);
  // PCI: an account on a processor that keeps the methods never has numbers sent through this service.
  if ((await gateways.gatewayFor(account)).importPaymentMethod) {
    throw badRequest(
      'This account collects payment methods through its processor (Stripe): card and account numbers are never sent ' +
        "to this service. Create the payment method in the customer's browser with Stripe.js, then attach it with " +
        'POST /payment-methods/{id}/attach.',
      input.type,
      'raw_numbers_refused',
    );
  }
  const id = account.gatewayKind === 'bank_processor' ? newUuid() : newId('paymentMethod');
  const common = {
    id,
    accountId,
    type: input.type,
    billingDetails: billingDetails(input.billing_details),
    metadata: input.metadata ?? {},
    allowRedisplay: input.allow_redisplay ?? 'unspecified',
  };
  // Only derived values leave this function: the number and CVC go no further than this scope.
  const data: Prisma.PaymentMethodUncheckedCreateInput =
    input.type === 'card'
      ? {
          ...common,
          fingerprint: fingerprint(accountId, 'card', input.card.number),
          last4: input.card.number.slice(-4),
          cardBrand: cardBrand(input.card.number),
          cardExpMonth: input.card.exp_month,
          cardExpYear: input.card.exp_year,
          testBehavior: cardTestBehavior(input.card.number),
        }
      : {
          ...common,
          fingerprint: fingerprint(
            accountId,
            'us_bank_account',
            `${input.us_bank_account.routing_number}:${input.us_bank_account.account_number}`,
          ),
          last4: input.us_bank_account.account_number.slice(-4),
          bankName: TEST_BANK_NAMES[input.us_bank_account.routing_number] ?? 'TEST BANK',
          bankRoutingNumber: input.us_bank_account.routing_number,
          bankAccountHolderType: input.us_bank_account.account_holder_type,
          bankAccountType: input.us_bank_account.account_type,
          testBehavior: bankAccountTestBehavior(input.us_bank_account.account_number),
        };

  return prisma.$transaction(async (tx) => {
    if (input.customer) {
      await lockCustomerParam(tx, accountId, input.customer);
      await lockCustomerMethods(tx, input.customer);
      const saved = await findSavedMethod(tx, accountId, input.customer, {
        fingerprint: data.fingerprint,
        type: data.type,
      });
      // Already saved for this customer: answer the saved method rather than keep a duplicate.
      if (saved) {
        const object = toPaymentMethodObject(
          await refreshSavedMethod(tx, saved, {
            cardExpMonth: data.cardExpMonth,
            cardExpYear: data.cardExpYear,
            billingDetails: data.billingDetails as Prisma.InputJsonValue,
          }),
        );
        await recordEvent(tx, accountId, 'payment_method.attached', object);
        return object;
      }
    }
    const method = await insertPaymentMethodRow(tx, data);
    const result = input.customer ? await attachInTx(tx, accountId, method, input.customer, false) : method;
    return toPaymentMethodObject(result);
  });
}

/**
 * The live customer a method is attached to, locked (FOR KEY SHARE) until the attach commits, so that a
 * concurrent DELETE /customers/{id} either waits and detaches the method, or comes first and this is a 404.
 */
async function lockCustomerParam(tx: Tx, accountId: string, customerId: string) {
  try {
    return await lockCustomer(tx, accountId, customerId, 'share');
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new ApiError('not_found', 'resource_missing', error.message, 'customer');
    }
    throw error;
  }
}

export async function getPaymentMethod(prisma: Db, accountId: string, id: string): Promise<PaymentMethodObject> {
  return toPaymentMethodObject(await findPaymentMethod(prisma, accountId, id));
}

export async function listPaymentMethods(
  prisma: Db,
  accountId: string,
  query: ListPaymentMethodsQuery,
): Promise<Page<PaymentMethodObject>> {
  const [methods, total] = await paymentMethodsPage(
    prisma,
    accountId,
    { customerId: query.customer, type: query.type },
    pageWindow(query),
  );
  return pageEnvelope(methods.map(toPaymentMethodObject), total, query);
}

export async function attachPaymentMethod(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  id: string,
  input: AttachPaymentMethodInput,
): Promise<PaymentMethodObject> {
  if (!(await readPaymentMethod(prisma, accountId, id))) {
    const gateway = await gateways.gatewayFor(accountId);
    if (gateway.importPaymentMethod)
      return attachProcessorMethod(prisma, gateway.importPaymentMethod.bind(gateway), accountId, id, input);
  }
  return prisma.$transaction(async (tx) => {
    await findPaymentMethod(tx, accountId, id);
    await lockCustomerParam(tx, accountId, input.customer);
    await lockCustomerMethods(tx, input.customer);
    // Read again under the lock: a concurrent attach or detach may have changed it.
    const method = await findPaymentMethod(tx, accountId, id);
    return toPaymentMethodObject(await attachInTx(tx, accountId, method, input.customer, input.default ?? false));
  });
}

/**
 * A method the customer's browser made with the processor's element (or a processor's test id such as
 * `pm_card_visa`), first seen here: attached to the customer at the processor, which answers what it shows,
 * then kept and attached here under the processor's id (docs/api.md, "Payment processors"). The customer is
 * checked before the processor is asked. A card the customer has saved already (the processor's
 * fingerprint) answers the saved method, as a typed card does.
 */
async function attachProcessorMethod(
  prisma: Db,
  importMethod: NonNullable<PaymentGateway['importPaymentMethod']>,
  accountId: string,
  id: string,
  input: AttachPaymentMethodInput,
): Promise<PaymentMethodObject> {
  await findCustomer(prisma, accountId, input.customer).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404)
      throw new ApiError('not_found', 'resource_missing', error.message, 'customer');
    throw error;
  });
  const imported = await atProcessor(() => importMethod({ paymentMethodId: id, customerId: input.customer }), id);
  return prisma.$transaction(async (tx) => {
    await lockCustomerParam(tx, accountId, input.customer);
    await lockCustomerMethods(tx, input.customer);
    const known = await readPaymentMethod(tx, accountId, imported.id);
    if (known)
      return toPaymentMethodObject(await attachInTx(tx, accountId, known, input.customer, input.default ?? false));
    const fingerprint = `${imported.livemode ? 'live' : 'test'}:${imported.fingerprint ?? imported.id}`;
    const saved = await findSavedMethod(tx, accountId, input.customer, {
      fingerprint,
      type: imported.type,
      attachedOnly: true,
    });
    if (saved) {
      const object = toPaymentMethodObject(
        await attachInTx(tx, accountId, saved, input.customer, input.default ?? false),
      );
      await recordEvent(tx, accountId, 'payment_method.attached', object);
      return object;
    }
    // Another account's customer holds it (the processor attached it anew for this one only if it is a test
    // stand-in's fixed id, or two accounts share one processor account): refused, nothing written here.
    if (await paymentMethodIdTaken(tx, imported.id))
      throw conflict(
        `Payment method ${imported.id} is attached to a customer of another account.`,
        'payment_method_unavailable',
      );
    const method = await insertPaymentMethodRow(tx, {
      id: imported.id,
      accountId,
      type: imported.type,
      billingDetails: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: null,
        name: imported.billingName,
        phone: null,
      },
      fingerprint,
      last4: imported.last4,
      cardBrand: imported.card?.brand ?? null,
      cardExpMonth: imported.card?.expMonth ?? null,
      cardExpYear: imported.card?.expYear ?? null,
      walletType: imported.card?.wallet ?? null,
      bankName: imported.bank?.bankName ?? null,
      bankRoutingNumber: imported.bank?.routingNumber ?? null,
      bankAccountHolderType: imported.bank?.holderType ?? null,
      bankAccountType: imported.bank?.accountType ?? null,
      livemode: imported.livemode,
      // The processor decides its outcomes: the simulator's verdict has no meaning for its methods.
      testBehavior: 'processor',
    });
    return toPaymentMethodObject(await attachInTx(tx, accountId, method, input.customer, input.default ?? false));
  });
}

/** A processor's refusal of a payment-method call as the API's answer: 400 naming the method, 502 when it is down. */
async function atProcessor<T>(call: () => Promise<T>, id: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayRequestError) {
      if (error.code === 'payment_method_unknown')
        throw new ApiError('not_found', 'resource_missing', `No such payment method: ${id}`, 'id');
      throw badRequest(error.message, 'id', error.code);
    }
    if (error instanceof GatewayUnavailableError)
      throw new ApiError(
        'api_error',
        'gateway_unavailable',
        `The payment processor did not answer: nothing was changed. Retry the same request. (${error.message})`,
        undefined,
        502,
      );
    throw error;
  }
}

/**
 * A processor's method is detached there first (it can never be charged there again either); a processor
 * that no longer knows it has nothing to detach. A processor that does not answer is a 502: nothing changed.
 */
async function detachAtProcessor(prisma: Db, gateways: Gateways, accountId: string, id: string): Promise<void> {
  const method = await readPaymentMethod(prisma, accountId, id);
  if (!method?.customerId || method.testBehavior !== 'processor') return;
  await detachEachAtProcessor(gateways, accountId, [id]);
}

async function detachEachAtProcessor(gateways: Gateways, accountId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const gateway = await gateways.gatewayFor(accountId);
  const detach = gateway.detachPaymentMethod?.bind(gateway);
  if (!detach) return;
  for (const id of ids) {
    try {
      await atProcessor(() => detach(id), id);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
  }
}

/**
 * A deleted customer's methods that a processor keeps are detached there first, as one detach is: a processor
 * that does not answer is a 502 and the deletion changes nothing here (sent again, it detaches the rest).
 */
export async function detachCustomerMethodsAtProcessor(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  customerId: string,
): Promise<void> {
  await detachEachAtProcessor(gateways, accountId, await readCustomerProcessorMethodIds(prisma, accountId, customerId));
}

/**
 * Detaching the default hands the default to the customer's earliest-attached remaining method, so a
 * customer with methods always has a default (the rule that made the first one default). A detached
 * method is never attached or charged again (decisions.md §5).
 */
export async function detachPaymentMethod(
  prisma: Db,
  gateways: Gateways,
  accountId: string,
  id: string,
): Promise<PaymentMethodObject> {
  await detachAtProcessor(prisma, gateways, accountId, id);
  return prisma.$transaction(async (tx) => {
    const found = await findPaymentMethod(tx, accountId, id);
    if (!found.customerId)
      throw conflict(`Payment method ${id} is not attached to a customer.`, 'payment_method_not_attached');
    await lockCustomerMethods(tx, found.customerId);
    const method = await findPaymentMethod(tx, accountId, id);
    const customerId = method.customerId;
    if (!customerId)
      throw conflict(`Payment method ${id} is not attached to a customer.`, 'payment_method_not_attached');
    const detached = await updatePaymentMethodRow(tx, id, {
      customerId: null,
      attachedAt: null,
      detachedAt: new Date(),
    });
    const current = await readDefaultMethodRow(tx, accountId, customerId);
    if (current?.paymentMethodId === id) {
      const next = await firstAttachedMethod(tx, accountId, customerId);
      if (next) {
        await moveDefaultMethod(tx, accountId, customerId, next.id);
      } else {
        await deleteDefaultMethod(tx, accountId, customerId);
      }
    }
    const object = toPaymentMethodObject(detached);
    await recordEvent(tx, accountId, 'payment_method.detached', object);
    return object;
  });
}

/**
 * Every method of a deleted customer is detached (payment_method.detached each), which makes it unusable
 * for good (decisions.md §5): no other customer can take it, with the deleted customer's billing details.
 * The customer keeps no default.
 */
export async function detachAllInTx(tx: Tx, accountId: string, customerId: string): Promise<void> {
  await lockCustomerMethods(tx, customerId);
  const methods = await readCustomerMethods(tx, accountId, customerId, 'asc');
  for (const method of methods) {
    const detached = await updatePaymentMethodRow(tx, method.id, {
      customerId: null,
      attachedAt: null,
      detachedAt: new Date(),
    });
    await recordEvent(tx, accountId, 'payment_method.detached', toPaymentMethodObject(detached));
  }
  await clearDefaultMethod(tx, accountId, customerId);
}

/** The customer's methods, the default first, then the most recently attached. */
export async function listCustomerPaymentMethods(
  prisma: Db,
  accountId: string,
  customerId: string,
  page: PageParams,
): Promise<Page<PaymentMethodObject>> {
  await findCustomer(prisma, accountId, customerId);
  const defaultMethod = await readDefaultMethodRow(prisma, accountId, customerId);
  const methods = await readCustomerMethods(prisma, accountId, customerId, 'desc');
  const ordered = [
    ...methods.filter((method) => method.id === defaultMethod?.paymentMethodId),
    ...methods.filter((method) => method.id !== defaultMethod?.paymentMethodId),
  ];
  const { skip, take } = pageWindow(page);
  return pageEnvelope(ordered.slice(skip, skip + take).map(toPaymentMethodObject), ordered.length, page);
}

export async function getCustomerPaymentMethod(
  prisma: Db,
  accountId: string,
  customerId: string,
  id: string,
): Promise<PaymentMethodObject> {
  await findCustomer(prisma, accountId, customerId);
  const method = await findCustomerMethod(prisma, accountId, customerId, id);
  if (!method) throw notFound('payment method', id);
  return toPaymentMethodObject(method);
}
