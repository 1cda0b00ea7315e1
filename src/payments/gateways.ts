import type { Client } from '@temporalio/client';
import type { Db } from '../db/prisma';
import { gatewayAccountOf, type GatewayAccount } from '../accounts';
import type { PaymentGateway } from './gateway';

export type { GatewayAccount };

/** The service's Temporal and the task queue its workflows run on. */
export interface GatewayTemporal {
  client: Client;
  taskQueue: string;
}

/**
 * What an adapter is built with: the database (its own records, the account's connection), the account served,
 * and the service's Temporal when the caller has one (an adapter whose processor answers later on durable timers
 * of its own, the simulator's bank debits, starts them there).
 */
export interface GatewayContext {
  prisma: Db;
  account: GatewayAccount;
  temporal?: GatewayTemporal;
}

export type GatewayFactory = (context: GatewayContext) => PaymentGateway;

const factories = new Map<string, GatewayFactory>();

/**
 * Makes `factory` serve the accounts whose processor is `processor`: the account's `payment_processor`
 * when it has connected one, its `gateway_kind` otherwise (`card_processor`, `bank_processor`). Called
 * once per processor from src/gateway-registrations.ts (docs/architecture.md, "Payment processors").
 */
export function registerGateway(processor: string, factory: GatewayFactory): void {
  if (factories.has(processor)) throw new Error(`A payment gateway is registered for ${processor} already.`);
  factories.set(processor, factory);
}

/** The processor whose adapter serves the account. */
export function processorOf(account: GatewayAccount): string {
  return account.paymentProcessor ?? account.gatewayKind;
}

/**
 * The one place an account's payment gateway is chosen. The API, the use cases, the activities and the
 * worker hold one `Gateways` and ask it for the account's gateway at each charge, so that connecting a
 * processor (or a test's stand-in) takes effect without anything else knowing: at once in the process that
 * connected it, and in the others when PostgreSQL announces the change (docs/decisions.md §48; within 30 s
 * at most in one that missed the announcement: the account's processor is kept as its connection is, `gatewayAccountOf`).
 */
export interface Gateways {
  gatewayFor(account: string | GatewayAccount): Promise<PaymentGateway>;
}

export class UnknownAccountError extends Error {}

/** The registered adapters, chosen by each account's processor. */
export function createGateways(prisma: Db, temporal?: GatewayTemporal): Gateways {
  return {
    async gatewayFor(account) {
      const served = typeof account === 'string' ? await gatewayAccountOf(prisma, account) : account;
      if (!served) throw new UnknownAccountError(`No account ${String(account)}.`);
      const processor = processorOf(served);
      const factory = factories.get(processor);
      if (!factory)
        throw new Error(`No payment gateway is registered for ${processor} (src/gateway-registrations.ts).`);
      return factory({ prisma, account: served, ...(temporal ? { temporal } : {}) });
    },
  };
}

/** One gateway for every account: a test's stand-in (one that loses answers, fails, counts calls). */
export function singleGateway(gateway: PaymentGateway): Gateways {
  return { gatewayFor: () => Promise.resolve(gateway) };
}
