import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client';
import { formatDateTime } from '../components/format';
import { listAddress, navigate, useLocation } from '../router';
import { Field, Form } from '../components/form';
import { objectPath } from '../components/links';
import { Table } from '../components/Table';

const TAKE = 50;

/** Who changed what: every write made through the API, by a key or a person, newest first. */
export function AuditLog() {
  const { search } = useLocation();
  const object = search.get('object') ?? '';
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [typed, setTyped] = useState(object);
  const go = (next: { object?: string; page?: number }) =>
    navigate(listAddress('/audit-log', { object: next.object ?? object, page: next.page ?? 1 }), { replace: true });
  const entries = useQuery({
    queryKey: ['audit-log', { object, page }],
    queryFn: () => api.GET('/audit-log', { params: { query: { page, take: TAKE, object: object || undefined } } }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <h1>Audit log</h1>
      <p className="muted">Every change made through the API or this dashboard: who made it, what and when.</p>
      <Form
        layout="inline"
        submit="Filter"
        submitClass="secondary"
        onSubmit={() => go({ object: typed.trim(), page: 1 })}
      >
        <Field label="Object id" value={typed} onValue={setTyped} placeholder="cus_…, sub_…" />
      </Form>
      <Table
        query={entries}
        rows={entries.data?.data}
        rowKey={(entry) => entry.id}
        empty={object ? `No change of ${object} is recorded.` : 'No change is recorded yet.'}
        columns={[
          { header: 'When', cell: (entry) => formatDateTime(entry.created) },
          {
            header: 'Who',
            cell: (entry) => (
              <>
                {entry.actor.name ?? <code>{entry.actor.id}</code>}
                <div className="muted small hide-narrow">
                  {entry.actor.type === 'user' ? entry.actor.email : 'API key'}
                </div>
              </>
            ),
          },
          {
            header: 'What',
            cell: (entry) => (
              <>
                <code>
                  {entry.method} {entry.route}
                </code>
                <div className="muted small hide-narrow">
                  answered {entry.status}, request <code>{entry.request_id}</code>
                </div>
              </>
            ),
          },
          {
            header: 'Object',
            cell: (entry) => entry.object_id && <code>{entry.object_id}</code>,
            link: (entry) => (entry.object_id ? (objectPath(entry.object_id) ?? undefined) : undefined),
            wide: true,
          },
        ]}
        pages={{ list: entries.data, page, onPage: (next) => go({ page: next }) }}
      />
    </>
  );
}
