import type { Queryable } from '../db/sql';
import { computeTax, type TaxRateForCalc } from '../catalog';
import { readPrices, readTaxRates } from '../catalog';
import { toTaxRateObject } from '../catalog';
import { splitByWeight } from '../coupons';
import { subscriptionPeriodHeld } from '../invoices';
import type { PendingLine, ProrationLine } from './proration';

/**
 * What unused time gives back (docs/decisions.md §25, "What unused time gives back"): credits for the
 * unused time of a billed period never credit more than the period is still worth, nor give back more
 * money than it collected. Judged at the change, under the workflow's lock (a local activity), and again
 * when the lines waiting are invoiced, since a credit note or a refund may have come in between.
 */

/** A proration line's total with tax for an amount (negative for a credit), as its invoice will bill it. */
type LineTotal = (line: ProrationLine, amount: number) => number;

/**
 * The credits, lowered so that together, tax included, they credit at most `room` cents: `room` split
 * over them in proportion to their totals (largest remainder), each then the largest amount whose total
 * fits its part. Credits within `room` are kept as they are; the answer is aligned with `credits`, a
 * credit lowered to nothing has amount 0.
 */
export function capCredits(credits: ProrationLine[], room: number, totalOf: LineTotal): ProrationLine[] {
  const totals = credits.map((line) => -totalOf(line, line.amount));
  if (totals.reduce((sum, total) => sum + total, 0) <= room) return credits;
  const parts = splitByWeight(Math.max(0, room), totals);
  return credits.map((line, index) => {
    // The largest magnitude whose total with tax is within its part (a total grows with the amount).
    let [low, high] = [0, -line.amount];
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (-totalOf(line, -middle) <= parts[index]!) low = middle;
      else high = middle - 1;
    }
    return { ...line, amount: low === 0 ? 0 : -low };
  });
}

/** Lines' totals with tax: each price's tax_behavior and the line's tax rates still active, as invoicing applies them. */
async function lineTotals(db: Queryable, accountId: string, lines: ProrationLine[]): Promise<LineTotal> {
  const [prices, rates] = await Promise.all([
    readPrices(db, accountId, [...new Set(lines.map((line) => line.priceId))]),
    readTaxRates(db, accountId, [...new Set(lines.flatMap((line) => line.taxRateIds))]),
  ]);
  const behaviors = new Map(prices.map((price) => [price.id, price.tax_behavior]));
  const active = new Map(rates.filter((rate) => rate.active).map((rate) => [rate.id, toTaxRateObject(rate)]));
  return (line, amount) => {
    const lineRates: TaxRateForCalc[] = line.taxRateIds.flatMap((id) => active.get(id) ?? []);
    return computeTax(amount, lineRates, behaviors.get(line.priceId)).total;
  };
}

/** A change's proration lines and what the subscription holds for its period when it is made. */
export interface UnusedTimeCapInput {
  accountId: string;
  subscriptionId: string;
  /** The billed period the change falls in (workflow ms). */
  period: { start: number; end: number };
  /** The lines waiting for the next invoice before the change. */
  pendingLines?: PendingLine[];
  /** The change's lines: credits for unused time (capped here) and charges for the time left. */
  lines: ProrationLine[];
}

const sameBilledPeriod = (periodEnd: number) => (line: PendingLine) =>
  line.kind !== 'carried_credit' && line.periodEnd === periodEnd;

/**
 * A change's lines with its credits for unused time capped (docs/decisions.md §25): together, tax
 * included, they credit at most what the period is still worth (collected, owed, and the lines waiting
 * for the same invoice), and give back at most what it collected beyond what they net against (the lines
 * waiting and the change's own charges). Charges are kept; a credit capped to nothing is left out.
 */
export async function capUnusedTimeCredits(db: Queryable, input: UnusedTimeCapInput): Promise<ProrationLine[]> {
  const credits = input.lines.filter((line) => line.kind === 'unused');
  if (credits.length === 0) return input.lines;
  const waiting = (input.pendingLines ?? []).filter(sameBilledPeriod(input.period.end)) as ProrationLine[];
  const charges = input.lines.filter((line) => line.kind === 'remaining');
  const totalOf = await lineTotals(db, input.accountId, [...waiting, ...input.lines]);
  const sumOf = (lines: ProrationLine[]) => lines.reduce((sum, line) => sum + totalOf(line, line.amount), 0);
  const held = await subscriptionPeriodHeld(db, input.accountId, input.subscriptionId, new Date(input.period.start));
  const worth = held.collected + held.owed + sumOf(waiting);
  const givenBackAtMost = held.collected + sumOf(waiting) + sumOf(charges);
  const capped = capCredits(credits, Math.min(worth, givenBackAtMost), totalOf);
  return [...capped, ...charges].filter((line) => line.amount !== 0);
}

/**
 * Lines waiting for an invoice, as it is made (a renewal, a change's invoice, an ending's): the credits of
 * each billed period they come from capped again at what it collected, beyond the charges of that period
 * beside them (a credit note or a refund after the change may have given part of it back). Charges and
 * carried credits are kept; a credit capped to nothing is left out.
 */
export async function capWaitingCredits(
  db: Queryable,
  accountId: string,
  subscriptionId: string,
  lines: PendingLine[],
): Promise<PendingLine[]> {
  const credits = lines.filter((line): line is ProrationLine => line.kind === 'unused');
  if (credits.length === 0) return lines;
  const prorations = lines.filter((line): line is ProrationLine => line.kind !== 'carried_credit');
  const totalOf = await lineTotals(db, accountId, prorations);
  const capped = new Map<PendingLine, ProrationLine>();
  for (const periodEnd of new Set(credits.map((line) => line.periodEnd))) {
    const ofPeriod = prorations.filter(sameBilledPeriod(periodEnd));
    const periodCredits = ofPeriod.filter((line) => line.kind === 'unused');
    const charged = ofPeriod
      .filter((line) => line.kind === 'remaining')
      .reduce((sum, line) => sum + totalOf(line, line.amount), 0);
    const changedAt = Math.min(...ofPeriod.map((line) => line.periodStart));
    const held = await subscriptionPeriodHeld(db, accountId, subscriptionId, new Date(changedAt));
    capCredits(periodCredits, held.collected + charged, totalOf).forEach((line, index) =>
      capped.set(periodCredits[index]!, line),
    );
  }
  return lines
    .map((line) => capped.get(line) ?? line)
    .filter((line) => line.kind === 'carried_credit' || line.amount !== 0);
}
