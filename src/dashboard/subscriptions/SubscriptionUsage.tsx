import { useQuery } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client';
import type { components } from '../../client/schema';
import { Fact } from '../components/facts';
import { Failure, Loading } from '../components/feedback';
import { formatDate, formatDateTime, formatMoney } from '../components/format';
import { priceName } from '../components/names';
import { ChartSvg, CHART_HEIGHT, CHART_WIDTH } from '../components/ChartSvg';
import { Table } from '../components/Table';

type Subscription = components['schemas']['Subscription'];
type ItemUsage = components['schemas']['SubscriptionUsage']['items'][number];

const DAY = 86_400;

const units = (value: number) => value.toLocaleString();

/**
 * The metered items' usage this period and the upcoming invoice, on the subscription's page: where a merchant
 * looks at what a customer will be billed (docs/decisions.md §46). The figures are GET /subscriptions/{id}/usage
 * and GET /invoices/upcoming, the same the invoice will bill; nothing is shown for a subscription without
 * metered items.
 */
export function SubscriptionUsage({ subscription }: { subscription: Subscription }) {
  const metered = subscription.items.data.some((item) => item.price.recurring?.usage_type === 'metered');
  const live = subscription.status !== 'canceled' && subscription.status !== 'expired';
  const id = subscription.id;
  const usage = useQuery({
    queryKey: ['subscription-usage', id, subscription.current_period_start],
    queryFn: () => api.GET('/subscriptions/{id}/usage', { params: { path: { id } } }),
    enabled: metered && live,
  });
  const upcoming = useQuery({
    queryKey: ['upcoming-invoice', id, subscription.current_period_start],
    queryFn: () =>
      api.GET('/invoices/upcoming', { params: { query: { subscription: id } } }).catch((error: unknown) => {
        // 409 no_upcoming_invoice: the subscription bills nothing more (ending, paused): said, not an error.
        if (error instanceof ApiFailure && error.status === 409) return null;
        throw error;
      }),
    enabled: metered && live,
  });
  if (!metered || !live) return null;
  if (usage.isPending) return <Loading />;
  if (usage.isError) return <Failure error={usage.error} />;
  const { period, items } = usage.data;
  const periodEnd = subscription.current_period_end ?? period.end;
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage this period</h2>
      <p className="muted">
        From {formatDate(period.start)} to {formatDateTime(period.end)}, billed in arrears at the period&apos;s end.
      </p>
      <UpcomingAmount subscription={subscription} query={upcoming} />
      {items.map((item) => {
        const price = subscription.items.data.find((each) => each.id === item.subscription_item)?.price;
        const name = price ? priceName(price) : item.price;
        return (
          <UsageChart
            key={item.subscription_item}
            name={name}
            currency={subscription.currency}
            item={item}
            periodStart={period.start}
            periodEnd={periodEnd}
          />
        );
      })}
    </section>
  );
}

function UpcomingAmount({
  subscription,
  query,
}: {
  subscription: Subscription;
  query: { isPending: boolean; isError: boolean; error: unknown; data: { total: number } | null | undefined };
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <Failure error={query.error} />;
  if (!query.data) return <p>No upcoming invoice: the subscription bills nothing more.</p>;
  return (
    <dl className="card facts">
      <Fact term="Upcoming invoice">
        <strong>{formatMoney(query.data.total, subscription.currency)}</strong>{' '}
        <span className="muted small">
          with the usage to date, on {formatDate(subscription.current_period_end)} (discounts and tax included)
        </span>
      </Fact>
    </dl>
  );
}

/**
 * One metered item's usage by day as bars in an inline SVG (drawn by hand, as the home's revenue chart:
 * docs/decisions.md §19), one slot per day of the period so the days still to come stay empty. The SVG is one
 * image with a summary for screen readers, each bar has a title, and the days are in a table for everyone.
 */
function UsageChart({
  name,
  currency,
  item,
  periodStart,
  periodEnd,
}: {
  name: string;
  currency: string;
  item: ItemUsage;
  periodStart: number;
  periodEnd: number;
}) {
  const periodDays = Math.max(1, Math.ceil((periodEnd - periodStart) / DAY));
  const slot = CHART_WIDTH / Math.max(periodDays, item.daily.length);
  const top = Math.max(1, ...item.daily.map((day) => day.value));
  const titleId = `usage-${item.subscription_item}`;
  const busiest = item.daily.reduce((a, b) => (b.value > a.value ? b : a), item.daily[0] ?? { start: 0, value: 0 });
  // An early (threshold) invoice billed part of the period: the upcoming invoice bills the rest only (docs/decisions.md §43).
  const billedEarly = item.billed.quantity !== 0 || item.billed.amount !== 0;
  const earlyText = `${units(item.billed.quantity)} units billed early (${formatMoney(item.billed.amount, currency)})`;
  const leftText = `${formatMoney(item.unbilled.amount, currency)} left to bill`;
  const summary =
    `${name}: ${units(item.total)} units so far (${item.aggregation}), ${formatMoney(item.amount, currency)}` +
    (billedEarly ? `, of which ${earlyText}, ${leftText}` : '') +
    (item.daily.length > 0 ? `; the most ${units(busiest.value)} on ${formatDate(busiest.start)}.` : '.');
  return (
    <figure className="card chart" aria-labelledby={titleId}>
      <figcaption>
        <h3 id={titleId}>{name} usage by day</h3>
        <p>
          <strong>{units(item.total)}</strong> units so far · <strong>{formatMoney(item.amount, currency)}</strong>{' '}
          <span className="muted small">before discounts and tax</span>
        </p>
        {billedEarly && (
          <p>
            {earlyText} · <strong>{leftText}</strong>
          </p>
        )}
      </figcaption>
      <ChartSvg titleId={titleId}>
        <line className="chart-axis" x1={0} x2={CHART_WIDTH} y1={CHART_HEIGHT - 1} y2={CHART_HEIGHT - 1} />
        {item.daily.map((day, n) => {
          const height = day.value === 0 ? 0 : Math.max(1, (day.value / top) * (CHART_HEIGHT - 2));
          return (
            <rect
              key={day.start}
              className="chart-bar"
              x={n * slot + 1}
              y={CHART_HEIGHT - 1 - height}
              width={Math.max(slot - 2, 1)}
              height={height}
            >
              <title>{`${formatDate(day.start)}: ${units(day.value)}`}</title>
            </rect>
          );
        })}
      </ChartSvg>
      <div className="chart-scale muted small" aria-hidden="true">
        <span>{formatDate(periodStart)}</span>
        <span>highest day {units(top)}</span>
        <span>{formatDate(periodEnd)}</span>
      </div>
      <p id={`${titleId}-summary`} className="visually-hidden">
        {summary}
      </p>
      <details>
        <summary>{name} usage by day as a table</summary>
        <Table
          frame="bare"
          caption={`${name} usage by day`}
          rows={item.daily}
          rowKey={(day) => String(day.start)}
          columns={[
            { header: 'Day from', cell: (day) => formatDateTime(day.start), rowHeader: true },
            { header: 'Usage', cell: (day) => units(day.value) },
          ]}
        />
      </details>
    </figure>
  );
}
