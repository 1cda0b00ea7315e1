import { pricingDetails, unitPrice } from '../../src/documents/invoice-document';
import { priceUsageLine, type Pricing } from '../../src/usage/usage-pricing';
import { formatMoney } from '../../src/lib/money';

// The words the PDF and the hosted page put under a usage line (docs/decisions.md §46), from the breakdown
// priceUsageLine keeps with the line: graduated, volume (a late line taking a tier back) and packages.

const usd = (cents: number) => formatMoney(cents, 'USD');
const tiers = [
  { upTo: 1000, unitAmount: 0, flatAmount: 0 },
  { upTo: 5000, unitAmount: 2, flatAmount: 500 },
  { upTo: null, unitAmount: 1, flatAmount: 0 },
];

/** An invoice line as the API answers it, billing `total` of which `billedBefore` was billed earlier. */
function usageLine(pricing: Pricing, total: number, billedBefore = 0) {
  const priced = priceUsageLine(pricing, total, billedBefore);
  const breakdown = priced.pricing;
  return {
    quantity: total - billedBefore,
    unit_amount: pricing.scheme === 'per_unit' ? pricing.unitAmount : 0,
    amount: priced.amount,
    tiers_mode: breakdown && 'tiers' in breakdown ? breakdown.tiers_mode : null,
    tiers: breakdown && 'tiers' in breakdown ? breakdown.tiers : null,
    transform_quantity: breakdown && 'packages' in breakdown ? breakdown.transform_quantity : null,
    packages: breakdown && 'packages' in breakdown ? breakdown.packages : null,
  } as any;
}

it('names each graduated tier the usage reached, first then next, with its flat fee and amount', () => {
  const line = usageLine({ scheme: 'tiered', mode: 'graduated', tiers }, 6000);
  expect(pricingDetails(line, usd)).toEqual([
    { label: 'First 1,000 units at $0.00', amount: '$0.00' },
    { label: 'Next 4,000 units at $0.02 + $5.00 flat fee', amount: '$85.00' },
    { label: 'Next 1,000 units at $0.01', amount: '$10.00' },
  ]);
  expect(unitPrice(line, usd)).toBe('');
});

it('names the units a late or remainder graduated line adds past those billed before, then the next tiers', () => {
  const graduated: Pricing = { scheme: 'tiered', mode: 'graduated', tiers };
  expect(pricingDetails(usageLine(graduated, 150, 100), usd)).toEqual([
    { label: 'Units 101-150 at $0.00', amount: '$0.00' },
  ]);
  expect(pricingDetails(usageLine(graduated, 1200, 900), usd)).toEqual([
    { label: 'Units 901-1,000 at $0.00', amount: '$0.00' },
    { label: 'Next 200 units at $0.02 + $5.00 flat fee', amount: '$9.00' },
  ]);
  expect(pricingDetails(usageLine(graduated, 1201, 1200), usd)).toEqual([
    { label: 'Unit 1,201 at $0.02', amount: '$0.02' },
  ]);
  // A line billed before the first unit was kept reads as it did.
  const older = usageLine(graduated, 1200, 900);
  older.tiers = older.tiers.map((tier: object) => ({ ...tier, first_unit: null }));
  expect(pricingDetails(older, usd).map((detail) => detail.label)).toEqual([
    'First 100 units at $0.00',
    'Next 200 units at $0.02 + $5.00 flat fee',
  ]);
});

it('names the one volume tier, and a late line taking the earlier tier back before billing the new one whole', () => {
  const volume: Pricing = { scheme: 'tiered', mode: 'volume', tiers };
  expect(pricingDetails(usageLine(volume, 1), usd)).toEqual([{ label: 'All 1 unit at $0.00', amount: '$0.00' }]);
  const late = usageLine(volume, 1200, 900);
  expect(pricingDetails(late, usd)).toEqual([
    { label: 'Less 900 units at $0.00', amount: '$0.00' },
    { label: 'All 1,200 units at $0.02 + $5.00 flat fee', amount: '$29.00' },
  ]);
  expect(late.amount).toBe(2900);
});

it('counts the packages billed, and gives the unit price per package', () => {
  const line = usageLine({ scheme: 'per_unit', unitAmount: 250, transform: { divideBy: 1000, round: 'up' } }, 1001);
  expect(pricingDetails(line, usd)).toEqual([{ label: '2 packages of 1,000 units at $2.50', amount: '$5.00' }]);
  expect(unitPrice(line, usd)).toBe('$2.50 per 1,000');
  expect(pricingDetails(usageLine({ scheme: 'per_unit', unitAmount: 3 }, 10), usd)).toEqual([]);
});
