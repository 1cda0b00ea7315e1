import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { paths } from '../../client/schema';
import { api } from '../api/client';
import type { Session } from '../api/types';
import type { EmailKind } from '../api/dashboard-paths';
import type { AccountSettings } from '../api/types';
import { currentTimeZone, formatDateTime } from '../components/format';
import { SESSION_KEY } from '../api/session';
import { Failure, Loading } from '../components/common';
import { Check, Field, Form, Options, SelectField } from '../components/form';
import { wholeNumberOf } from './section-parts';

type AccountSettingsUpdate = NonNullable<
  paths['/dashboard/api/account']['patch']['requestBody']
>['content']['application/json'];

/** Every zone this browser's Intl knows, UTC first. */
function timeZones(): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...known.filter((zone) => zone !== 'UTC')];
}

/**
 * The account's settings (GET /dashboard/api/account), whether this member may change them, and their
 * save (PATCH), which keeps the answer and then runs `onSaved`; with the section's notice. The save takes a
 * function that reads the body, run inside the mutation: a field the form refuses is shown as the API's
 * refusal is.
 */
function useAccountSettings(session: Session, onSaved: (saved: AccountSettings) => Promise<string> | string) {
  const queryClient = useQueryClient();
  const key = ['account-settings', session.account?.id];
  const account = useQuery({ queryKey: key, queryFn: () => api.GET('/dashboard/api/account') });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (body: () => AccountSettingsUpdate) => api.PATCH('/dashboard/api/account', { body: body() }),
    onSuccess: async (saved) => {
      queryClient.setQueryData(key, saved);
      setNotice(await onSaved(saved));
    },
  });
  return { account, editable: session.account?.role === 'superadmin', save, notice, setNotice };
}

export function AccountSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const { account, editable, save, notice, setNotice } = useAccountSettings(session, async (saved) => {
    // The session carries the name and zone every page shows: read it again.
    await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    return `Saved. Dates and times are shown in ${saved.time_zone}.`;
  });
  const submit = (element: HTMLFormElement) => {
    const form = new FormData(element);
    setNotice(undefined);
    save.mutate(() => ({ name: String(form.get('name') ?? ''), time_zone: String(form.get('time_zone') ?? '') }));
  };

  return (
    <section className="card settings-section" aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      {account.isPending && <Loading />}
      {account.isError && <Failure error={account.error} />}
      {account.data && !editable && (
        <dl className="facts">
          <dt>Name</dt>
          <dd>{account.data.name}</dd>
          <dt>Time zone</dt>
          <dd>{account.data.time_zone}</dd>
        </dl>
      )}
      {account.data && editable && (
        <Form
          key={`${account.data.name}|${account.data.time_zone}`}
          onSubmit={submit}
          action={save}
          submit="Save account"
          busyLabel="Saving…"
          notice={notice}
        >
          <Field label="Account name" name="name" defaultValue={account.data.name} required maxLength={200} />
          <SelectField label="Time zone" name="time_zone" defaultValue={account.data.time_zone}>
            <Options values={timeZones()} />
          </SelectField>
        </Form>
      )}
      <p className="muted small">
        Dates and times are shown in {currentTimeZone()}: it is now {formatDateTime(Math.floor(Date.now() / 1000))}.
      </p>
    </section>
  );
}

const EMAIL_KINDS: { kind: EmailKind; label: string }[] = [
  { kind: 'invoice', label: 'Invoices (collection by invoice), with the PDF' },
  { kind: 'receipt', label: 'Receipts when an invoice is paid' },
  { kind: 'payment_failed', label: "Failed payments of a subscription's renewal or retry" },
  { kind: 'payment_action_required', label: 'Payments the customer must authenticate (3-D Secure), with the link' },
  { kind: 'installment_failed', label: "Failed installments of a payment plan's automatic charge" },
  { kind: 'renewal_reminder', label: 'Upcoming renewal reminders (days before: below)' },
  { kind: 'trial_ending', label: 'Trial ending reminders (days before: below)' },
  { kind: 'team_invitation', label: 'Team invitations (to the invited person)' },
];

/** A reminder's days before (docs/decisions.md §31): empty for none. */
function DaysField({ label, name, value }: { label: string; name: string; value: number | null }) {
  return (
    <Field
      label={`${label}: days before (1 to 30; empty: none)`}
      name={name}
      inputMode="numeric"
      defaultValue={value ?? ''}
      maxLength={3}
    />
  );
}

/** "7" as 7, empty as null (none); anything else is sent as is, for the API to name. */
/** The days typed, as a number for the body; empty is none (null). */
function reminderDaysOf(value: FormDataEntryValue | null, param: string): number | null {
  const text = String(value ?? '').trim();
  return text ? wholeNumberOf(text, param) : null;
}

/** The emails sent to the account's customers: their From and the kinds sent (docs/api.md, "Emails"). */
export function EmailSection({ session }: { session: Session }) {
  const { account, editable, save, notice, setNotice } = useAccountSettings(session, () => 'Saved.');
  const submit = (element: HTMLFormElement) => {
    const form = new FormData(element);
    const from = String(form.get('email_from') ?? '').trim();
    setNotice(undefined);
    const color = String(form.get('brand_color') ?? '').trim();
    save.mutate(() => ({
      email_from: from || null,
      emails_off: EMAIL_KINDS.filter(({ kind }) => !form.has(`send_${kind}`)).map(({ kind }) => kind),
      renewal_reminder_days: reminderDaysOf(form.get('renewal_reminder_days'), 'renewal_reminder_days'),
      trial_end_reminder_days: reminderDaysOf(form.get('trial_end_reminder_days'), 'trial_end_reminder_days'),
      brand_color: color || null,
    }));
  };
  const data = account.data;
  return (
    <section className="card settings-section" aria-labelledby="emails-heading">
      <h2 id="emails-heading">Emails to customers</h2>
      {data && !editable && (
        <dl className="facts">
          <dt>From</dt>
          <dd>{data.email_from ?? 'the service’s default address'}</dd>
          <dt>Not sent</dt>
          <dd>{data.emails_off.length ? data.emails_off.join(', ') : 'none'}</dd>
          <dt>Renewal reminder</dt>
          <dd>{data.renewal_reminder_days === null ? 'none' : `${data.renewal_reminder_days} days before`}</dd>
          <dt>Trial ending reminder</dt>
          <dd>{data.trial_end_reminder_days === null ? 'none' : `${data.trial_end_reminder_days} days before`}</dd>
          <dt>Colour</dt>
          <dd>{data.brand_color ?? 'the service’s blue'}</dd>
        </dl>
      )}
      {data && editable && (
        <Form
          onSubmit={submit}
          action={save}
          submit="Save emails"
          busyLabel="Saving…"
          notice={notice}
          key={[
            data.email_from,
            data.emails_off.join(','),
            data.renewal_reminder_days,
            data.trial_end_reminder_days,
            data.brand_color,
          ].join('|')}
        >
          <Field
            label="From address (empty: the service’s default, under the account’s name)"
            name="email_from"
            type="email"
            defaultValue={data.email_from ?? ''}
            maxLength={254}
          />
          <fieldset className="field">
            <legend>Send</legend>
            {EMAIL_KINDS.map(({ kind, label }) => (
              <Check key={kind} label={label} name={`send_${kind}`} defaultChecked={!data.emails_off.includes(kind)} />
            ))}
          </fieldset>
          <DaysField label="Renewal reminder" name="renewal_reminder_days" value={data.renewal_reminder_days} />
          <DaysField
            label="Trial ending reminder"
            name="trial_end_reminder_days"
            value={data.trial_end_reminder_days}
          />
          <Field
            label="Colour of emails and customer pages (#rrggbb; empty: the service’s blue)"
            name="brand_color"
            defaultValue={data.brand_color ?? ''}
            maxLength={7}
            placeholder="#1f6feb"
          />
        </Form>
      )}
    </section>
  );
}
