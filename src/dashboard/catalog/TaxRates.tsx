import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { TaxRate } from '../api/types';
import { StateBadge } from '../components/badges';
import { Confirm } from '../components/dialogs';
import { Table } from '../components/Table';
import { CopyId } from '../components/CopyId';
import { Check, Field, Form, numberOf } from '../components/form';
import { ErrorLine } from './catalog-forms';

export function TaxRates() {
  const queryClient = useQueryClient();
  const rates = useQuery({
    queryKey: ['taxRates'],
    queryFn: () => api.GET('/taxRates', { params: { query: { take: 100 } } }),
  });
  const [creating, setCreating] = useState(false);
  const [asking, setAsking] = useState<TaxRate>();
  const toggle = useMutation({
    mutationFn: (rate: TaxRate) =>
      api.PATCH('/taxRates/{id}', { params: { path: { id: rate.id } }, body: { active: !rate.active } }),
    onSuccess: () => {
      setAsking(undefined);
      void queryClient.invalidateQueries({ queryKey: ['taxRates'] });
    },
    onError: () => setAsking(undefined),
  });

  return (
    <>
      <div className="title-row">
        <h2>Tax rates</h2>
        {!creating && (
          <button type="button" className="secondary" onClick={() => setCreating(true)}>
            New tax rate
          </button>
        )}
      </div>
      {creating && <NewTaxRate onDone={() => setCreating(false)} />}
      <ErrorLine error={toggle.error} />
      <Table
        query={rates}
        rows={rates.data?.data}
        rowKey={(rate) => rate.id}
        empty="No tax rates yet."
        columns={[
          { header: 'Tax rate', cell: (rate) => rate.display_name },
          {
            header: 'Rate',
            cell: (rate) => `${rate.percentage}% ${rate.inclusive ? 'included' : 'added on top'}`,
          },
          { header: 'State', cell: (rate) => <StateBadge on={rate.active} label={['active', 'inactive']} /> },
          { header: 'Id', cell: (rate) => <CopyId id={rate.id} />, wide: true },
          {
            header: 'Actions',
            headerHidden: true,
            cell: (rate) => (
              <button type="button" className="secondary" onClick={() => setAsking(rate)}>
                {rate.active ? 'Deactivate' : 'Activate'}
                <span className="visually-hidden"> {rate.display_name}</span>
              </button>
            ),
          },
        ]}
      />
      {asking && (
        <Confirm
          title={asking.active ? `Deactivate ${asking.display_name}?` : `Activate ${asking.display_name}?`}
          message={
            asking.active
              ? 'The next invoices of subscriptions that carry it stop applying it; invoices already made keep it.'
              : 'Subscriptions that carry it apply it again from their next invoice.'
          }
          confirm={asking.active ? 'Deactivate' : 'Activate'}
          danger={asking.active}
          action={{ isPending: toggle.isPending }}
          onConfirm={() => toggle.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
    </>
  );
}

function NewTaxRate({ onDone }: { onDone: () => void }) {
  const queryClient = useQueryClient();
  const [displayName, setDisplayName] = useState('');
  const [percentage, setPercentage] = useState('');
  const [inclusive, setInclusive] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      // Empty or not a number is NaN, which JSON sends as null: the API's refusal names `percentage`.
      api.POST('/taxRates', { body: { display_name: displayName, percentage: numberOf(percentage), inclusive } }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['taxRates'] });
      onDone();
    },
  });
  return (
    <Form
      layout="card"
      label="New tax rate"
      submit="Create tax rate"
      busyLabel="Saving…"
      action={create}
      onSubmit={() => create.mutate()}
      onCancel={onDone}
    >
      <Field label="Name" value={displayName} onValue={setDisplayName} required maxLength={100} />
      <Field
        label="Percentage"
        value={percentage}
        onValue={setPercentage}
        inputMode="decimal"
        placeholder="8.25"
        required
        inputClassName="narrow"
      />
      <Check label="Included in prices" className="checkbox" checked={inclusive} onChecked={setInclusive} />
    </Form>
  );
}
