import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { CurrencyOverview, Session } from '../api/types';
import { formatMoney } from '../components/format';
import { Link } from '../router';
import { Empty, Failure, Loading } from '../components/common';
import { RevenueChart } from './RevenueChart';

/** Whether a currency's figures are all zero: a fresh account, or one with nothing going on. */
function isQuiet(figure: CurrencyOverview): boolean {
  return (
    figure.mrr === 0 &&
    figure.active_subscriptions === 0 &&
    figure.failed_payments === 0 &&
    figure.open_invoices.count === 0 &&
    figure.past_due_payment_plans === 0 &&
    figure.revenue.daily.every((day) => day.amount === 0)
  );
}

export function Home({ session }: { session: Session }) {
  const overview = useQuery({
    queryKey: ['reports', 'overview'],
    queryFn: () => api.GET('/reports/overview'),
    // The figures move with every charge; read them again when the screen is shown after a minute.
    staleTime: 60_000,
  });
  return (
    <>
      <h1>Welcome, {session.user.name}</h1>
      <p className="muted">
        {session.account?.name} · your role: {session.account?.role}
      </p>
      {overview.isPending ? (
        <Loading />
      ) : overview.isError ? (
        <Failure error={overview.error} />
      ) : overview.data.currencies.every(isQuiet) ? (
        <Empty>
          <p>No figures yet: this account has no subscriptions, invoices or payments.</p>
          <p>
            Start with the <Link to="/catalog">catalog</Link> (a product and its price), then a{' '}
            <Link to="/customers">customer</Link>.
          </p>
        </Empty>
      ) : (
        overview.data.currencies
          .filter((figure) => !isQuiet(figure))
          .map((figure) => <CurrencyFigures key={figure.currency} figure={figure} />)
      )}
    </>
  );
}

function Tile({ to, label, value, detail }: { to?: string; label: string; value: string; detail?: string }) {
  const body = (
    <>
      <h3>{label}</h3>
      <p className="figure">{value}</p>
      {detail && <p className="muted small">{detail}</p>}
    </>
  );
  return to ? (
    <Link className="card tile figure-tile" to={to}>
      {body}
    </Link>
  ) : (
    <div className="card tile figure-tile">{body}</div>
  );
}

/** The tiles of one currency; each leads to the list its figure counts, filtered (docs/api.md, "Reports"). */
function CurrencyFigures({ figure }: { figure: CurrencyOverview }) {
  const money = (cents: number) => formatMoney(cents, figure.currency);
  const headingId = `figures-${figure.currency}`;
  return (
    <section aria-labelledby={headingId} className="figures">
      <h2 id={headingId}>Figures in {figure.currency}</h2>
      <div className="tiles">
        <Tile
          to="/subscriptions?status=active"
          label="MRR"
          value={money(figure.mrr)}
          detail="Monthly recurring revenue of active and past-due subscriptions"
        />
        <Tile
          to="/subscriptions?status=active"
          label="Active subscriptions"
          value={String(figure.active_subscriptions)}
          detail="Active or past due"
        />
        <Tile
          to="/payments?status=succeeded"
          label="Revenue, 30 days"
          value={money(figure.revenue.total)}
          detail="Succeeded payments minus refunds"
        />
        <Tile
          to="/payments?status=failed&type=payment"
          label="Failed payments, 30 days"
          value={String(figure.failed_payments)}
        />
        <Tile
          to="/invoices?status=open"
          label="Open invoices"
          value={String(figure.open_invoices.count)}
          detail={`${money(figure.open_invoices.amount_due)} due`}
        />
        <Tile
          to="/invoices?status=open"
          label="Past-due invoices"
          value={String(figure.past_due_invoices.count)}
          detail={`${money(figure.past_due_invoices.amount_due)} overdue`}
        />
        <Tile
          to="/payment-plans?status=past_due"
          label="Payment plans past due"
          value={String(figure.past_due_payment_plans)}
        />
      </div>
      <RevenueChart currency={figure.currency} daily={figure.revenue.daily} />
    </section>
  );
}
