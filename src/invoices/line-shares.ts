import { discountedLineTotals } from '../coupons';
import type { InvoiceLine } from '../generated/prisma/client';
import type { InvoiceWithLines } from './invoice.records';
import type { TaxAmountObject } from './invoice.schemas';

/** A line's total with its tax: what the invoice billed for it before any discount. */
function lineTotalWithTax(line: InvoiceLine): bigint {
  const tax = (line.taxAmounts as TaxAmountObject[]).reduce((sum, each) => sum + BigInt(each.amount), 0n);
  return line.amountExcludingTax + tax;
}

/** The line's tax group as discount lines were made for it: its rates, each with the behavior it was taxed by. */
function taxGroupOf(line: InvoiceLine): string {
  const behaviors = (line.taxAmounts as TaxAmountObject[]).map((each) => each.tax_behavior);
  return `${line.taxRateIds.join(',')}|${behaviors.join(',')}`;
}

/**
 * What the customer was billed for each line of the invoice: its total with tax less its share of the
 * invoice's discount (docs/decisions.md §22), by line id. Discount lines are 0 (their amount is in the
 * lines they discount); the shares add up to the invoice's total.
 */
export function discountedLineShares(invoice: Pick<InvoiceWithLines, 'lines'>): Map<string, bigint> {
  const totals = discountedLineTotals(
    invoice.lines.map((line) => ({
      amount: Number(line.amount),
      total: Number(lineTotalWithTax(line)),
      group: taxGroupOf(line),
      discount: line.discountId !== null,
    })),
  );
  return new Map(invoice.lines.map((line, index) => [line.id, BigInt(totals[index]!)]));
}
