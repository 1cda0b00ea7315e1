import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { components } from '../../client/schema';
import { api } from '../api/client';
import { formatDateTime } from '../components/format';
import { StatusBadge } from '../components/badges';
import { Empty, isNotFound } from '../components/feedback';
import { Field, Form } from '../components/form';
import { Table } from '../components/Table';

type TestEmail = components['schemas']['TestEmail'];

const TAKE = 20;

/** "invoice.pdf (application/pdf, 3 KB)" */
function attachmentLabel(attachment: TestEmail['attachments'][number]): string {
  return `${attachment.filename} (${attachment.content_type}, ${Math.max(1, Math.round(attachment.size / 1024))} KB)`;
}

/**
 * Test mode: the emails to the account's customers that the local SMTP catcher received
 * (GET /test-helpers/emails), newest first; one opened shows its HTML as a mail reader would (in a
 * sandboxed frame: no script runs), its text and its attachments.
 */
export function TestEmails() {
  const [to, setTo] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string>();
  const emails = useQuery({
    queryKey: ['test-emails', to, page],
    queryFn: () => api.GET('/test-helpers/emails', { params: { query: { page, take: TAKE, to: to || undefined } } }),
    placeholderData: keepPreviousData,
  });
  const opened = emails.data?.data.find((email) => email.id === open);

  return (
    <>
      <h2>Emails</h2>
      <p className="muted">
        Test mode: the emails sent to your customers, as the local mail catcher received them. Nothing here left this
        machine.
      </p>
      <Form
        layout="inline"
        submit="Filter"
        submitClass="secondary"
        onSubmit={(form) => {
          const value = new FormData(form).get('to');
          setTo(typeof value === 'string' ? value.trim() : '');
          setPage(1);
        }}
      >
        <Field label="To" name="to" type="email" defaultValue={to} placeholder="customer@example.com" />
      </Form>
      {isNotFound(emails.error) ? (
        <Empty>
          <p>Test mode is off: emails go to the SMTP server and none is kept here.</p>
        </Empty>
      ) : (
        <Table
          query={emails}
          rows={emails.data?.data}
          rowKey={(email) => email.id}
          frame="compact"
          empty={to ? `No email to ${to} was received.` : 'No email was received yet.'}
          columns={[
            { header: 'Received', cell: (email) => formatDateTime(email.received) },
            { header: 'To', cell: (email) => email.to.join(', '), wide: true },
            {
              header: 'Subject',
              cell: (email) => (
                <button
                  type="button"
                  className="secondary"
                  aria-expanded={open === email.id}
                  onClick={() => setOpen(open === email.id ? undefined : email.id)}
                >
                  {email.subject ?? '(no subject)'}
                </button>
              ),
              note: (email) => email.attachments.map(attachmentLabel).join(', '),
            },
            { header: 'Kind', cell: (email) => <StatusBadge status={email.kind} />, wide: true },
          ]}
          pages={{ list: emails.data, page, onPage: setPage }}
        />
      )}
      {opened && <OpenedEmail email={opened} />}
    </>
  );
}

/** An email opened: its HTML as a mail reader shows it (in a sandboxed frame: no script runs), its text, its attachments. */
function OpenedEmail({ email: opened }: { email: TestEmail }) {
  return (
    <section className="card" style={{ padding: '1rem' }} aria-labelledby="email-open-title">
      <h3 id="email-open-title">{opened.subject}</h3>
      <p className="muted small">
        From {opened.from} to {opened.to.join(', ')}, {formatDateTime(opened.received)}; Message-ID{' '}
        <code>{opened.message_id}</code>
      </p>
      {opened.attachments.length > 0 && (
        <ul>
          {opened.attachments.map((attachment, index) => (
            <li key={index}>
              <a href={`/test-helpers/emails/${opened.id}/attachments/${index}`} target="_blank" rel="noreferrer">
                {attachmentLabel(attachment)}
              </a>
            </li>
          ))}
        </ul>
      )}
      {opened.html && (
        <iframe
          title={`HTML of ${opened.subject ?? 'the email'}`}
          sandbox=""
          srcDoc={opened.html}
          style={{ width: '100%', height: '720px', border: '1px solid #e4e7eb', borderRadius: 6 }}
        />
      )}
      <h4>Plain text</h4>
      <pre className="small" style={{ whiteSpace: 'pre-wrap' }}>
        {opened.text}
      </pre>
    </section>
  );
}
