import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { Failure, Loading } from '../components/common';
import { Choices, Field, Form } from '../components/form';
import { wholeNumberOf } from './section-parts';

interface DunningSettings {
  retry_days: number[];
  outcome: 'cancel' | 'pause' | 'keep_active';
}

const OUTCOMES: { value: DunningSettings['outcome']; label: string }[] = [
  { value: 'cancel', label: 'Cancel the subscription' },
  { value: 'pause', label: 'Pause the subscription' },
  { value: 'keep_active', label: 'Keep it active (the invoice stays open)' },
];

/** Turns "1, 3, 7" into [1, 3, 7]; a part that is not a whole number is refused beside the field. */
function daysOf(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => wholeNumberOf(part, 'retry_days'));
}

export function DunningSection() {
  const queryClient = useQueryClient();
  const dunning = useQuery({
    queryKey: ['dunning-settings'],
    queryFn: () => api.GET('/settings/dunning'),
  });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    // The body is read inside the mutation: a day the form refuses is shown as the API's refusal is.
    mutationFn: (input: { retry_days: string; outcome: DunningSettings['outcome'] }) =>
      api.PUT('/settings/dunning', { body: { retry_days: daysOf(input.retry_days), outcome: input.outcome } }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['dunning-settings'], saved);
      setNotice('Saved. The schedule applies to renewal charges that fail from now on.');
    },
  });
  const submit = (element: HTMLFormElement) => {
    const form = new FormData(element);
    setNotice(undefined);
    save.mutate({
      retry_days: String(form.get('retry_days') ?? ''),
      // One of the radio buttons' values, OUTCOMES.
      outcome: String(form.get('outcome')) as DunningSettings['outcome'],
    });
  };
  return (
    <section className="card settings-section" aria-labelledby="dunning-heading">
      <h2 id="dunning-heading">Dunning</h2>
      <p className="muted">When a renewal charge fails, it is retried on these days after the failure.</p>
      {dunning.isPending && <Loading />}
      {dunning.isError && <Failure error={dunning.error} />}
      {dunning.data && (
        <Form
          key={`${dunning.data.retry_days.join()}|${dunning.data.outcome}`}
          onSubmit={submit}
          action={save}
          submit="Save dunning"
          busyLabel="Saving…"
          notice={notice}
        >
          <Field
            label="Retry on days (after the failed charge, ascending, comma-separated)"
            name="retry_days"
            defaultValue={dunning.data.retry_days.join(', ')}
            inputMode="numeric"
          />
          <Choices
            legend="When every retry has failed"
            name="outcome"
            options={OUTCOMES}
            initial={dunning.data.outcome}
          />
        </Form>
      )}
    </section>
  );
}

type ProrationBehavior = 'create_prorations' | 'always_invoice' | 'none';

const BEHAVIORS: { value: ProrationBehavior; label: string }[] = [
  { value: 'create_prorations', label: 'Credit and charge the rest of the period on the next invoice' },
  { value: 'always_invoice', label: 'Invoice and charge the difference at once' },
  { value: 'none', label: 'Do not prorate: the change bills from the next invoice' },
];

/** The account's default proration_behavior (docs/api.md "Proration"), for changes that name none. */
export function ProrationSection() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['proration-settings'],
    queryFn: () => api.GET('/settings/proration'),
  });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (behavior: ProrationBehavior) =>
      api.PUT('/settings/proration', { body: { proration_behavior: behavior } }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['proration-settings'], saved);
      setNotice('Saved. It applies to subscription changes made from now on.');
    },
  });
  const submit = (element: HTMLFormElement) => {
    setNotice(undefined);
    // One of the radio buttons' values, BEHAVIORS.
    save.mutate(String(new FormData(element).get('proration_behavior')) as ProrationBehavior);
  };
  const current = settings.data?.proration_behavior;
  return (
    <section className="card settings-section" aria-labelledby="proration-heading">
      <h2 id="proration-heading">Proration</h2>
      <p className="muted">
        When a subscription&apos;s items change inside a period already billed, exact to the second.
      </p>
      {settings.isPending && <Loading />}
      {settings.isError && <Failure error={settings.error} />}
      {current && (
        <Form key={current} onSubmit={submit} action={save} submit="Save proration" busyLabel="Saving…" notice={notice}>
          <Choices
            legend="By default, a change of items"
            name="proration_behavior"
            options={BEHAVIORS}
            initial={current}
          />
        </Form>
      )}
    </section>
  );
}
