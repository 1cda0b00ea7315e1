import { formatMoney } from '../components/format';
import { ChartSvg, CHART_HEIGHT, CHART_WIDTH } from '../components/ChartSvg';
import { Table } from '../components/Table';

const SLOT = CHART_WIDTH / 30;

/** The API's days are UTC days (`YYYY-MM-DD`); they are named as such, not moved to the reader's zone. */
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayName = (date: string) => dayFormat.format(new Date(`${date}T00:00:00Z`));

/**
 * The 30 days of revenue as bars in an inline SVG (no chart library: docs/decisions.md §19). The SVG
 * is one image with a summary for screen readers, each bar has a title (shown on hover), and the
 * numbers are in a table under a disclosure, for everyone.
 */
export function RevenueChart({ currency, daily }: { currency: string; daily: { date: string; amount: number }[] }) {
  const money = (cents: number) => formatMoney(cents, currency);
  const top = Math.max(0, ...daily.map((day) => day.amount));
  const bottom = Math.min(0, ...daily.map((day) => day.amount));
  const span = top - bottom || 1;
  // Bars grow up from the zero line, refunds larger than a day's payments down from it.
  const y = (amount: number) => ((top - amount) / span) * (CHART_HEIGHT - 2) + 1;
  const zero = y(0);
  const best = daily.reduce((a, b) => (b.amount > a.amount ? b : a), daily[0]!);
  const total = daily.reduce((sum, day) => sum + day.amount, 0);
  const titleId = `revenue-${currency}`;
  const summary =
    `Revenue in ${currency} by day, ${dayName(daily[0]!.date)} to ${dayName(daily.at(-1)!.date)} (UTC): ` +
    `${money(total)} in all, the most ${money(best.amount)} on ${dayName(best.date)}.`;

  return (
    <figure className="card chart">
      <figcaption>
        <h3 id={titleId}>Revenue by day, last 30 days</h3>
        <p className="muted small">UTC days · highest day {money(top)}</p>
      </figcaption>
      <ChartSvg titleId={titleId}>
        <line className="chart-axis" x1={0} x2={CHART_WIDTH} y1={zero} y2={zero} />
        {daily.map((day, n) => {
          const from = Math.min(y(day.amount), zero);
          const height = Math.max(Math.abs(y(day.amount) - zero), day.amount === 0 ? 0 : 1);
          return (
            <rect
              key={day.date}
              className={day.amount < 0 ? 'chart-bar negative' : 'chart-bar'}
              x={n * SLOT + 2}
              y={from}
              width={SLOT - 4}
              height={height}
            >
              <title>{`${dayName(day.date)}: ${money(day.amount)}`}</title>
            </rect>
          );
        })}
      </ChartSvg>
      <div className="chart-scale muted small" aria-hidden="true">
        <span>{dayName(daily[0]!.date)}</span>
        <span>{dayName(daily.at(-1)!.date)}</span>
      </div>
      <p id={`${titleId}-summary`} className="visually-hidden">
        {summary}
      </p>
      <details>
        <summary>Revenue by day as a table</summary>
        <Table
          frame="bare"
          caption={`Revenue in ${currency} by UTC day`}
          rows={daily}
          rowKey={(day) => day.date}
          columns={[
            { header: 'Day', cell: (day) => dayName(day.date), rowHeader: true },
            { header: 'Revenue', cell: (day) => money(day.amount) },
          ]}
        />
      </details>
    </figure>
  );
}
