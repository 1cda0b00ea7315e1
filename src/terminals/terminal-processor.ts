import type { Db, Tx } from '../db/prisma';
import { readSaleProcessorOutcome } from './terminal.records';

/** What the terminal's processor answers for a sale: its outcome, or `unknown` when it has none. */
export type ProcessorSaleOutcome = 'approved' | 'declined' | 'unknown';

/**
 * Asks the terminal's processor for the outcome of one sale: what continues a sale whose report
 * never reached the service (`resolving`, decisions.md §8). The simulated processor (test mode)
 * answers what its terminal recorded when it lost the report (`processor_outcome` of the sale, set by
 * `/test-helpers/terminals/{id}/present-card` with outcome `lost`); a sale it holds no outcome for is
 * `unknown`. A real processor would be asked here by the sale id.
 */
export async function processorSaleOutcome(db: Db | Tx, saleId: string): Promise<ProcessorSaleOutcome> {
  const outcome = await readSaleProcessorOutcome(db, saleId);
  return outcome === 'approved' || outcome === 'declined' ? outcome : 'unknown';
}
