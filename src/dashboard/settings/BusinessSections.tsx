import { Fragment, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure } from '../api/client';
import type { BusinessDetailsUpdate, Session } from '../api/types';
import { Failure, Loading, Notice } from '../components/common';
import { Check, Field, Form } from '../components/form';
import { Submit, wholeNumberOf } from './section-parts';

const ADDRESS_PARTS = [
  ['line1', 'Address line 1'],
  ['line2', 'Address line 2'],
  ['city', 'City'],
  ['state', 'State or region'],
  ['postal_code', 'Postal code'],
  ['country', 'Country (two letters, e.g. GB)'],
] as const;

const DETAIL_FIELDS = [
  ['legal_name', 'Legal name'],
  ['support_email', 'Support email'],
  ['support_phone', 'Support phone'],
  ['tax_id', 'Tax ID (VAT number, EIN…)'],
] as const;

type DetailField = (typeof DETAIL_FIELDS)[number][0];

/**
 * Business details (docs/api.md "Business details"): the seller's legal name, address, support email and phone,
 * and tax id that invoices, credit notes, the hosted invoice page and the invoice email show. Every role reads
 * them; a superadmin edits them. An emptied field is cleared; the field the API refuses is marked.
 */
export function BusinessDetailsSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const key = ['business-details', session.account?.id];
  const details = useQuery({ queryKey: key, queryFn: () => api.GET('/settings/business-details') });
  const editable = session.account?.role === 'superadmin';
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: BusinessDetailsUpdate) => api.PUT('/settings/business-details', { body: input }),
    onSuccess: (saved) => {
      queryClient.setQueryData(key, saved);
      setNotice('Saved. Invoices finalized from now on show these details; issued ones keep theirs.');
    },
  });
  const refused = save.error instanceof ApiFailure ? save.error.error.param : undefined;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const value = (name: string) => String(form.get(name) ?? '').trim() || null;
    const address: NonNullable<BusinessDetailsUpdate['address']> = Object.fromEntries(
      ADDRESS_PARTS.flatMap(([part]) => {
        const text = value(`address.${part}`);
        return text ? [[part, text]] : [];
      }),
    );
    setNotice(undefined);
    save.mutate({
      ...(Object.fromEntries(DETAIL_FIELDS.map(([name]) => [name, value(name)])) as Record<DetailField, string | null>),
      address: Object.keys(address).length > 0 ? address : null,
    });
  };
  const data = details.data;
  const field = (name: string, label: string, current: string | null | undefined) => (
    <label className="field" key={name}>
      {label}
      <input
        name={name}
        defaultValue={current ?? ''}
        aria-invalid={refused === name ? true : undefined}
        aria-describedby={refused === name ? 'business-details-error' : undefined}
      />
    </label>
  );
  return (
    <section className="card settings-section" aria-labelledby="business-details-heading">
      <h2 id="business-details-heading">Business details</h2>
      <p className="muted">Who issues your invoices: shown on invoices, credit notes, the invoice page and emails.</p>
      {details.isPending && <Loading />}
      {details.isError && <Failure error={details.error} />}
      {data && !editable && (
        <dl className="facts">
          {DETAIL_FIELDS.map(([name, label]) => (
            <Fragment key={name}>
              <dt>{label}</dt>
              <dd>{data[name] ?? '—'}</dd>
            </Fragment>
          ))}
          <dt>Address</dt>
          <dd>
            {data.address
              ? ADDRESS_PARTS.map(([part]) => data.address?.[part])
                  .filter(Boolean)
                  .join(', ')
              : '—'}
          </dd>
        </dl>
      )}
      {data && editable && (
        <form onSubmit={submit} key={JSON.stringify(data)} aria-label="Business details">
          {field('legal_name', DETAIL_FIELDS[0][1], data.legal_name)}
          <fieldset className="address-fields">
            <legend>Address</legend>
            {ADDRESS_PARTS.map(([part, label]) => field(`address.${part}`, label, data.address?.[part]))}
          </fieldset>
          {DETAIL_FIELDS.slice(1).map(([name, label]) => field(name, label, data[name]))}
          <Submit busy={save.isPending} label="Save business details" busyLabel="Saving…" />
        </form>
      )}
      <Notice text={notice} />
      {save.error && (
        <p className="error" role="alert" id="business-details-error">
          {save.error.message}
        </p>
      )}
    </section>
  );
}

/** The days typed, as a number for the body; empty leaves them as they are. */
function wholeDaysOf(text: string): number | undefined {
  return text ? wholeNumberOf(text, 'default_after_days') : undefined;
}

/**
 * Payment plans (docs/api.md "Payment plan settings"): off for a new account. Every role reads them; a
 * superadmin turns them on or off and sets the days a past_due plan waits before it is defaulted.
 */
export function PaymentPlansSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const key = ['payment-plan-settings', session.account?.id];
  const settings = useQuery({
    queryKey: key,
    queryFn: () => api.GET('/settings/payment-plans'),
  });
  const editable = session.account?.role === 'superadmin';
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    // The body is read inside the mutation: days the form refuses are shown as the API's refusal is.
    mutationFn: (input: { enabled: boolean; default_after_days: string }) =>
      api.PUT('/settings/payment-plans', {
        body: { enabled: input.enabled, default_after_days: wholeDaysOf(input.default_after_days) },
      }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(key, saved);
      setNotice(
        saved.enabled
          ? 'Saved. Payment plans are on; the default applies to plans created from now on.'
          : 'Saved. Payment plans are off: no new plan can be created; plans that exist keep running.',
      );
      // The Payment plans page answers differently now.
      await queryClient.invalidateQueries({ queryKey: ['payment-plans'] });
    },
  });
  const submitPlans = (element: HTMLFormElement) => {
    const form = new FormData(element);
    setNotice(undefined);
    save.mutate({
      enabled: form.has('enabled'),
      default_after_days: String(form.get('default_after_days') ?? '').trim(),
    });
  };
  const data = settings.data;
  return (
    <section className="card settings-section" aria-labelledby="payment-plans-heading">
      <h2 id="payment-plans-heading">Payment plans</h2>
      <p className="muted">
        Split a total into installments charged on their dates. Off until a superadmin turns them on here.
      </p>
      {settings.isPending && <Loading />}
      {settings.isError && <Failure error={settings.error} />}
      {data && !editable && (
        <dl className="facts">
          <dt>Payment plans</dt>
          <dd>{data.enabled ? 'On' : 'Off'}</dd>
          <dt>Defaulted after</dt>
          <dd>{data.default_after_days} days past due</dd>
        </dl>
      )}
      {data && editable && (
        <Form
          key={`${data.enabled}|${data.default_after_days}`}
          onSubmit={submitPlans}
          action={save}
          submit="Save payment plans"
          busyLabel="Saving…"
          notice={notice}
        >
          <Check label="Payment plans on" name="enabled" defaultChecked={data.enabled} />
          <Field
            label="Days a past due plan waits before it is defaulted (1 to 365)"
            name="default_after_days"
            inputMode="numeric"
            defaultValue={data.default_after_days}
            maxLength={3}
            required
          />
        </Form>
      )}
    </section>
  );
}
