import {
  addIntervals,
  addMonths,
  periodBounds,
  periodStart,
  type BillingCycle,
} from '../../src/subscriptions/billing-dates';
import { DAY_MS } from '../../src/lib/durations';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function schedule(cycle: BillingCycle, periods: number): string[] {
  return Array.from({ length: periods }, (_, index) => iso(periodStart(cycle, index)));
}

describe('addMonths', () => {
  it.each([
    ['2027-01-31T10:00:00.000Z', 1, '2027-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'],
    ['2028-01-30T00:00:00.000Z', 1, '2028-02-29T00:00:00.000Z'],
    ['2027-01-29T00:00:00.000Z', 1, '2027-02-28T00:00:00.000Z'],
    ['2027-03-31T23:59:59.999Z', 1, '2027-04-30T23:59:59.999Z'],
    ['2027-12-31T00:00:00.000Z', 2, '2028-02-29T00:00:00.000Z'],
    ['2027-11-15T08:30:00.000Z', 3, '2028-02-15T08:30:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 12, '2029-02-28T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 48, '2032-02-29T00:00:00.000Z'],
    ['2027-05-31T00:00:00.000Z', -3, '2027-02-28T00:00:00.000Z'],
  ])('%s + %i months = %s', (start, months, expected) => {
    expect(iso(addMonths(at(start), months))).toBe(expected);
  });
});

describe('periodStart: periods are counted from the anchor, so the billing day never drifts', () => {
  it('monthly on the 31st across short months and the 2028 leap year, back to the 31st every time it exists', () => {
    expect(schedule({ anchorMs: at('2028-01-31T12:00:00.000Z'), interval: 'month', intervalCount: 1 }, 14)).toEqual([
      '2028-01-31T12:00:00.000Z',
      '2028-02-29T12:00:00.000Z',
      '2028-03-31T12:00:00.000Z',
      '2028-04-30T12:00:00.000Z',
      '2028-05-31T12:00:00.000Z',
      '2028-06-30T12:00:00.000Z',
      '2028-07-31T12:00:00.000Z',
      '2028-08-31T12:00:00.000Z',
      '2028-09-30T12:00:00.000Z',
      '2028-10-31T12:00:00.000Z',
      '2028-11-30T12:00:00.000Z',
      '2028-12-31T12:00:00.000Z',
      '2029-01-31T12:00:00.000Z',
      '2029-02-28T12:00:00.000Z',
    ]);
  });

  it('monthly on the 30th and the 29th: February clamps, March returns to the anchor day', () => {
    expect(schedule({ anchorMs: at('2027-01-30T00:00:00.000Z'), interval: 'month', intervalCount: 1 }, 3)).toEqual([
      '2027-01-30T00:00:00.000Z',
      '2027-02-28T00:00:00.000Z',
      '2027-03-30T00:00:00.000Z',
    ]);
    expect(schedule({ anchorMs: at('2028-01-29T00:00:00.000Z'), interval: 'month', intervalCount: 1 }, 3)).toEqual([
      '2028-01-29T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-03-29T00:00:00.000Z',
    ]);
  });

  it('interval_count multiplies the interval (quarterly from Nov 30)', () => {
    expect(schedule({ anchorMs: at('2027-11-30T00:00:00.000Z'), interval: 'month', intervalCount: 3 }, 4)).toEqual([
      '2027-11-30T00:00:00.000Z',
      '2028-02-29T00:00:00.000Z',
      '2028-05-30T00:00:00.000Z',
      '2028-08-30T00:00:00.000Z',
    ]);
  });

  it('yearly from a leap day bills on Feb 28 in common years and Feb 29 in leap years', () => {
    expect(schedule({ anchorMs: at('2028-02-29T00:00:00.000Z'), interval: 'year', intervalCount: 1 }, 5)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2029-02-28T00:00:00.000Z',
      '2030-02-28T00:00:00.000Z',
      '2031-02-28T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
    ]);
    expect(schedule({ anchorMs: at('2027-06-15T00:00:00.000Z'), interval: 'year', intervalCount: 2 }, 3)).toEqual([
      '2027-06-15T00:00:00.000Z',
      '2029-06-15T00:00:00.000Z',
      '2031-06-15T00:00:00.000Z',
    ]);
  });

  it('days and weeks are fixed lengths, with interval_count', () => {
    const anchorMs = at('2028-02-27T09:00:00.000Z');
    expect(schedule({ anchorMs, interval: 'day', intervalCount: 1 }, 4)).toEqual([
      '2028-02-27T09:00:00.000Z',
      '2028-02-28T09:00:00.000Z',
      '2028-02-29T09:00:00.000Z',
      '2028-03-01T09:00:00.000Z',
    ]);
    expect(schedule({ anchorMs, interval: 'day', intervalCount: 10 }, 2)[1]).toBe('2028-03-08T09:00:00.000Z');
    expect(schedule({ anchorMs, interval: 'week', intervalCount: 2 }, 3)).toEqual([
      '2028-02-27T09:00:00.000Z',
      '2028-03-12T09:00:00.000Z',
      '2028-03-26T09:00:00.000Z',
    ]);
    expect(addIntervals(anchorMs, 'week', 1) - anchorMs).toBe(7 * DAY_MS);
  });

  it('a period ends where the next one starts', () => {
    const cycle: BillingCycle = { anchorMs: at('2028-01-31T00:00:00.000Z'), interval: 'month', intervalCount: 1 };
    expect(periodBounds(cycle, 1)).toEqual({
      start: at('2028-02-29T00:00:00.000Z'),
      end: at('2028-03-31T00:00:00.000Z'),
    });
    for (let index = 0; index < 120; index++) {
      expect(periodBounds(cycle, index).end).toBe(periodBounds(cycle, index + 1).start);
      expect(periodBounds(cycle, index).end).toBeGreaterThan(periodBounds(cycle, index).start);
    }
  });

  it('ten years of month-end periods stay on the last day of the month', () => {
    const cycle: BillingCycle = { anchorMs: at('2028-01-31T00:00:00.000Z'), interval: 'month', intervalCount: 1 };
    for (let index = 0; index < 120; index++) {
      const start = new Date(periodStart(cycle, index));
      const lastDay = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
      expect(start.getUTCDate()).toBe(lastDay);
    }
  });
});
