import { formatDate, formatDateTime, setTimeZone, startOfDay } from '../../src/dashboard/components/format';

/** The dashboard shows times in the account's zone (docs/decisions.md §21): formats and day bounds. */
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

afterEach(() => setTimeZone('UTC'));

describe("the account's time zone in the dashboard's formats", () => {
  it('shows a time with the zone abbreviation and the date of that zone', () => {
    const lateEvening = Date.UTC(2026, 10, 24, 23, 30) / 1000;
    setTimeZone('Asia/Tokyo');
    expect(formatDateTime(lateEvening)).toMatch(/25, 2026.*8:30.*GMT\+9/);
    expect(formatDate(lateEvening)).toMatch(/25, 2026/);
    setTimeZone('America/New_York');
    expect(formatDateTime(lateEvening)).toMatch(/24, 2026.*6:30.*EST/);
  });

  it("counts a day from the zone's midnight, across summer time, and keeps the last zone for an unknown one", () => {
    setTimeZone('America/New_York');
    expect(iso(startOfDay(2026, 3, 8))).toBe('2026-03-08T05:00:00.000Z');
    expect(iso(startOfDay(2026, 3, 9))).toBe('2026-03-09T04:00:00.000Z');
    expect(iso(startOfDay(2026, 11, 31))).toBe('2026-12-01T05:00:00.000Z');
    setTimeZone('Mars/Olympus');
    expect(iso(startOfDay(2026, 11, 1))).toBe('2026-11-01T04:00:00.000Z');
  });
});
