import type { Terminal, TerminalSale } from '../generated/prisma/client';
import type { Db, Tx } from '../db/prisma';
import { processorOf } from '../payments';
import { readGatewayAccount } from '../accounts';
import { readSaleProcessorOutcome, readSaleRow } from './terminal.records';

/** What the terminal's processor answers for a sale: its outcome, or `unknown` when it has none. */
export type ProcessorSaleOutcome = 'approved' | 'declined' | 'unknown';

/** A sale as the processor is told it: the service's ids, its amount in integer cents, and its key. */
export interface ProcessorSale {
  accountId: string;
  terminal: Terminal;
  sale: TerminalSale;
  planId: string;
  /** The same key for every request about this sale: a repeated start never makes a second charge. */
  idempotencyKey: string;
}

/**
 * The terminal-processor port (docs/decisions.md §8, §47): what the payment-plans code asks of the device that
 * takes a card, whoever processes it. Outcomes come back on their own: the simulator's through its test helpers,
 * a processor's through its webhook, both recorded by `reportTerminalOutcome`.
 */
export interface TerminalProcessor {
  /** Registers the device for a new terminal; answers the processor's reader id (null: nothing to register). */
  registerReader(input: { terminalId: string; label: string; registrationCode?: string }): Promise<string | null>;
  /** Sends a sale to the reader; answers the processor's reference for it (null: the simulator keeps none). */
  startSale(sale: ProcessorSale): Promise<string | null>;
  /**
   * Asks the reader to stop the sale. `cancelled`: the processor says nothing was taken and nothing will be
   * (recorded at once); `requested`: the terminal reports the cancellation later (or the sale's outcome).
   */
  cancelSale(sale: ProcessorSale): Promise<'cancelled' | 'requested'>;
  /**
   * Test mode: the processor's own test card is presented to the reader, its outcome reported later. Absent: the
   * test helpers play the device themselves (the simulator).
   */
  presentTestCard?(sale: ProcessorSale): Promise<void>;
  /** What the processor recorded for a sale whose report never reached the service (`resolving`). */
  saleOutcome(db: Db | Tx, sale: TerminalSale): Promise<ProcessorSaleOutcome>;
}

/**
 * What a processor reports of a sale on its own (its webhook): the service's sale id read back from the
 * processor's object, and the outcome; `generatedCard`: the processor's reusable card the sale produced, to attach
 * to the customer (an approved sale without one is approved_no_credential).
 */
export interface ProcessorSaleReport {
  accountId: string;
  /** The sale by the service's id, or by the processor's reference for it (a reader's event names only that). */
  sale: { id: string } | { processorReference: string };
  outcome: 'approved' | 'declined' | 'lost' | 'cancelled';
  generatedCard?: string | null;
}

export type TerminalProcessorFactory = (context: { prisma: Db; accountId: string }) => TerminalProcessor;

/**
 * The simulated processor (test mode): registers nothing, sends nothing, and answers what its terminal recorded
 * when it lost the report (`processor_outcome` of the sale, set by `/test-helpers/terminals/{id}/present-card`
 * with outcome `lost`); a sale it holds no outcome for is `unknown`.
 */
export const simulatedTerminalProcessor: TerminalProcessorFactory = () => ({
  registerReader: () => Promise.resolve(null),
  startSale: () => Promise.resolve(null),
  cancelSale: () => Promise.resolve('requested'),
  async saleOutcome(db, sale) {
    const outcome = await readSaleProcessorOutcome(db, sale.id);
    return outcome === 'approved' || outcome === 'declined' ? outcome : 'unknown';
  },
});

const factories = new Map<string, TerminalProcessorFactory>();

/**
 * Makes `factory` serve the terminals of accounts whose processor is `processor` (as a payment gateway is chosen:
 * src/payments/gateways.ts). Called once per processor from src/gateway-registrations.ts.
 */
export function registerTerminalProcessor(processor: string, factory: TerminalProcessorFactory): void {
  if (factories.has(processor)) throw new Error(`A terminal processor is registered for ${processor} already.`);
  factories.set(processor, factory);
}

/** The terminal processor serving the account's terminals. */
export async function terminalProcessorFor(prisma: Db, accountId: string): Promise<TerminalProcessor> {
  const account = await readGatewayAccount(prisma, accountId);
  if (!account) throw new Error(`No account ${accountId}.`);
  const processor = processorOf(account);
  const factory = factories.get(processor);
  if (!factory) throw new Error(`No terminal processor is registered for ${processor} (src/gateway-registrations.ts).`);
  return factory({ prisma, accountId });
}

/**
 * Asks the terminal's processor for the outcome of one sale: what continues a sale whose report never reached
 * the service (`resolving`, decisions.md §8).
 */
export async function processorSaleOutcome(db: Db | Tx, saleId: string): Promise<ProcessorSaleOutcome> {
  const sale = await readSaleRow(db, saleId);
  // A caller inside a transaction passes it: the processor only reads through it (the account, its connection).
  const processor = await terminalProcessorFor(db as Db, sale.accountId);
  return processor.saleOutcome(db, sale);
}
