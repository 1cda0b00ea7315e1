import { useQuery } from '@tanstack/react-query';
import { api, type CustomerReport } from '../api';
import { formatDateTime } from '../components/format';
import { Link } from '../router';
import { Failure, Loading, StatusBadge } from './common';

const seconds = (iso: string | null) => (iso ? Date.parse(iso) / 1000 : null);

/**
 * The report's summary gives its times in ISO-8601 UTC (as the support command prints them); the page
 * shows them as it shows every time, in the account's time zone (docs/decisions.md §21).
 */
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g;
const readable = (line: string) => line.replace(ISO_TIME, (iso) => formatDateTime(seconds(iso)));

/**
 * "Why was this customer charged, or not?" on one screen: the answer in plain words, each charge with
 * the card, the processor's answer and the reason it was made, and what comes next (the same report as
 * `npm run support -- customer`, GET /customers/{id}/billing-report).
 */
export function CustomerWhy({ id }: { id: string }) {
  const report = useQuery({
    queryKey: ['customer', id, 'billing-report'],
    queryFn: () => api<CustomerReport>('GET', `/customers/${encodeURIComponent(id)}/billing-report`),
  });
  return (
    <section aria-labelledby="why-title">
      <h2 id="why-title">Why charged, or not</h2>
      {report.isPending ? (
        <Loading />
      ) : report.isError ? (
        <Failure error={report.error} />
      ) : (
        <>
          <div className="card why">
            {report.data.summary.map((line) => (
              <p key={line}>{readable(line)}</p>
            ))}
          </div>
          {report.data.charges.length > 0 && (
            <div className="card table-card">
              <table>
                <caption className="visually-hidden">Charges, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Answer</th>
                    <th scope="col" className="hide-narrow">
                      Why
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {report.data.charges.map((charge) => (
                    <tr key={charge.id}>
                      <td>{formatDateTime(seconds(charge.at))}</td>
                      <td>
                        {charge.amount}
                        <div className="muted small">
                          {charge.payment_method
                            ? `${charge.payment_method.brand ?? 'card'} ****${charge.payment_method.last4}`
                            : 'no payment method'}
                        </div>
                      </td>
                      <td>
                        <StatusBadge status={charge.status} />
                        {charge.processor.failure_code && (
                          <div className="muted small">
                            {charge.processor.failure_code}
                            {charge.processor.failure_message ? `: ${charge.processor.failure_message}` : ''}
                          </div>
                        )}
                      </td>
                      <td className="hide-narrow">
                        {charge.invoice ? (
                          <Link to={`/invoices/${charge.invoice}`}>{charge.reason}</Link>
                        ) : (
                          charge.reason
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {report.data.next.length > 0 && (
            <>
              <h3>What comes next</h3>
              <ul className="card next-steps">
                {report.data.next.map((step) => (
                  <li key={`${step.of}-${step.what}`}>
                    {formatDateTime(seconds(step.at))}: {step.what} ({step.of})
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
