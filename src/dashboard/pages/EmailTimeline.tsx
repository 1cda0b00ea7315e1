import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Page } from '../api';
import { formatDateTime } from '../components/format';
import { listPlaceholder, PagesOf, StatusBadge } from './common';

interface EmailObject {
  id: string;
  kind: string;
  to: string;
  subject: string;
  status: 'queued' | 'sent' | 'failed';
  created: number;
  sent_at: number | null;
  failed_at: number | null;
  attempts: number;
  last_response: string | null;
}

const KIND_LABELS: Record<string, string> = {
  invoice: 'Invoice',
  receipt: 'Receipt',
  payment_failed: 'Failed payment',
  installment_failed: 'Failed installment',
  renewal_reminder: 'Renewal reminder',
  trial_ending: 'Trial ending',
};

/**
 * The emails sent to the customer, or about the invoice (GET /emails, docs/api.md "Emails"), newest
 * first, each with its status: queued while the SMTP server has not taken it, sent, or failed (why).
 */
export function EmailTimeline({
  filter,
  version,
}: {
  filter: { customer: string } | { invoice: string };
  /** The object as shown: when it changes (an action on the page), its emails are read again. */
  version: unknown;
}) {
  const [page, setPage] = useState(1);
  const emails = useQuery({
    queryKey: ['emails', filter, page, version],
    queryFn: () =>
      api<Page<EmailObject>>('GET', `/emails?${new URLSearchParams({ ...filter, take: '10', page: String(page) })}`),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="emails-title">
      <h2 id="emails-title">Emails</h2>
      {listPlaceholder(emails, 'No email sent yet.') ?? (
        <ol className="card list timeline">
          {(emails.data?.data ?? []).map((email) => (
            <li key={email.id}>
              <div className="timeline-row">
                <span>
                  <strong>{KIND_LABELS[email.kind] ?? email.kind}</strong> {email.subject}{' '}
                  <span className="muted small">
                    to {email.to} · {formatDateTime(email.sent_at ?? email.failed_at ?? email.created)}
                    {email.status === 'failed' && email.last_response ? ` · ${email.last_response}` : ''}
                  </span>
                </span>
                <StatusBadge status={email.status} />
              </div>
            </li>
          ))}
        </ol>
      )}
      <PagesOf list={emails.data} page={page} onPage={setPage} />
    </section>
  );
}
