import { StatusBadge } from '../components/badges';
import { Loaded } from '../components/feedback';
import { formatDateTime } from '../components/format';
import { Table } from '../components/Table';
import { secondsOf, useBillingReport } from '../billing/report';

/**
 * The report's summary gives its times in ISO-8601 UTC (as the support command prints them); the page
 * shows them as it shows every time, in the account's time zone (docs/decisions.md §21).
 */
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const readable = (line: string) => line.replace(ISO_TIME, (iso) => formatDateTime(secondsOf(iso)));

/**
 * "Why was this customer charged, or not?" on one screen: the answer in plain words, each charge with
 * the card, the processor's answer and the reason it was made, and what comes next (the same report as
 * `npm run support -- customer`, GET /customers/{id}/billing-report).
 */
export function CustomerWhy({ id }: { id: string }) {
  const report = useBillingReport(id);
  return (
    <section aria-labelledby="why-title">
      <h2 id="why-title">Why charged, or not</h2>
      <Loaded query={report}>
        {(data) => (
          <>
            <div className="card why">
              {data.summary.map((line) => (
                <p key={line}>{readable(line)}</p>
              ))}
            </div>
            {data.charges.length > 0 && (
              <Table
                rows={data.charges}
                rowKey={(charge) => charge.id}
                caption="Charges, newest first"
                columns={[
                  { header: 'When', cell: (charge) => formatDateTime(secondsOf(charge.at)) },
                  {
                    header: 'Amount',
                    cell: (charge) => charge.amount,
                    note: (charge) =>
                      charge.payment_method
                        ? `${charge.payment_method.brand ?? 'card'} ****${charge.payment_method.last4}`
                        : 'no payment method',
                  },
                  {
                    header: 'Answer',
                    cell: (charge) => <StatusBadge status={charge.status} />,
                    note: (charge) =>
                      charge.processor.failure_code &&
                      `${charge.processor.failure_code}${charge.processor.failure_message ? `: ${charge.processor.failure_message}` : ''}`,
                  },
                  {
                    header: 'Why',
                    cell: (charge) => charge.reason,
                    link: (charge) => (charge.invoice ? `/invoices/${charge.invoice}` : undefined),
                    wide: true,
                  },
                ]}
              />
            )}
            {data.next.length > 0 && (
              <>
                <h3>What comes next</h3>
                <ul className="card next-steps">
                  {data.next.map((step) => (
                    <li key={`${step.of}-${step.what}`}>
                      {formatDateTime(secondsOf(step.at))}: {step.what} ({step.of})
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
