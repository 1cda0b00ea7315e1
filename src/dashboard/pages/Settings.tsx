import { Fragment, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, type BusinessDetails, type PaymentPlanSettings, type Role, type Session } from '../api';
import { currentTimeZone, formatDateTime } from '../components/format';
import { SESSION_KEY } from '../api/session';
import { Confirm, Failure, Loading, Notice } from './common';
import { TestClocksSection } from './TestClocks';

/**
 * Settings (docs/api.md "Dashboard team"): the account (name, time zone), its business details, the dunning schedule, proration, payment
 * plans, the team and invitations, test clocks in test mode, and the signed-in person's profile. What a role may do is the API's to decide:
 * the page only leaves out forms the role would be refused.
 */
export function Settings({ session }: { session: Session }) {
  const role = session.account?.role;
  const canDevelop = role === 'developer' || role === 'superadmin';
  return (
    <>
      <h1>Settings</h1>
      <AccountSection session={session} />
      <BusinessDetailsSection session={session} />
      <EmailSection session={session} />
      {canDevelop && <DunningSection />}
      {canDevelop && <ProrationSection />}
      <PaymentPlansSection session={session} />
      {canDevelop && <TeamSection session={session} />}
      <TestClocksSection />
      <ProfileSection session={session} />
    </>
  );
}

const ROLES: Role[] = ['standard', 'developer', 'superadmin'];

function Submit({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button type="submit" disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}

/** What a section's last action did: its notice, or the API's refusal as it words it. */
function Outcome({ notice, error }: { notice: string | undefined; error: Error | null }) {
  return (
    <>
      <Notice text={notice} />
      {error && <Failure error={error} />}
    </>
  );
}

/** A select's options, each value its own label. */
function Options({ values }: { values: readonly string[] }) {
  return values.map((value) => (
    <option key={value} value={value}>
      {value}
    </option>
  ));
}

interface AccountSettings {
  id: string;
  name: string;
  time_zone: string;
  email_from: string | null;
  emails_off: string[];
  renewal_reminder_days: number | null;
  trial_end_reminder_days: number | null;
  brand_color: string | null;
}

/** Every zone this browser's Intl knows, UTC first. */
function timeZones(): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...known.filter((zone) => zone !== 'UTC')];
}

/**
 * The account's settings (GET /dashboard/api/account), whether this member may change them, and their
 * save (PATCH), which keeps the answer and then runs `onSaved`; with the section's notice.
 */
function useAccountSettings(session: Session, onSaved: (saved: AccountSettings) => Promise<string> | string) {
  const queryClient = useQueryClient();
  const key = ['account-settings', session.account?.id];
  const account = useQuery({ queryKey: key, queryFn: () => api<AccountSettings>('GET', '/dashboard/api/account') });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: Partial<Record<keyof Omit<AccountSettings, 'id'>, unknown>>) =>
      api<AccountSettings>('PATCH', '/dashboard/api/account', input),
    onSuccess: async (saved) => {
      queryClient.setQueryData(key, saved);
      setNotice(await onSaved(saved));
    },
  });
  return { account, editable: session.account?.role === 'superadmin', save, notice, setNotice };
}

function AccountSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const { account, editable, save, notice, setNotice } = useAccountSettings(session, async (saved) => {
    // The session carries the name and zone every page shows: read it again.
    await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    return `Saved. Dates and times are shown in ${saved.time_zone}.`;
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setNotice(undefined);
    save.mutate({ name: String(form.get('name') ?? ''), time_zone: String(form.get('time_zone') ?? '') });
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
        <form onSubmit={submit} key={`${account.data.name}|${account.data.time_zone}`}>
          <label className="field">
            Account name
            <input name="name" defaultValue={account.data.name} required maxLength={200} />
          </label>
          <label className="field">
            Time zone
            <select aria-label="Time zone" name="time_zone" defaultValue={account.data.time_zone}>
              <Options values={timeZones()} />
            </select>
          </label>
          <Submit busy={save.isPending} label="Save account" busyLabel="Saving…" />
        </form>
      )}
      <p className="muted small">
        Dates and times are shown in {currentTimeZone()}: it is now {formatDateTime(Math.floor(Date.now() / 1000))}.
      </p>
      <Outcome notice={notice} error={save.error} />
    </section>
  );
}

/** Radio buttons for one setting, the current value checked. */
function Choices({
  legend,
  name,
  options,
  current,
}: {
  legend: string;
  name: string;
  options: { value: string; label: string }[];
  current: string;
}) {
  return (
    <fieldset className="choices">
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value}>
          <input type="radio" name={name} value={option.value} defaultChecked={current === option.value} />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}

const EMAIL_KINDS = [
  { kind: 'invoice', label: 'Invoices (collection by invoice), with the PDF' },
  { kind: 'receipt', label: 'Receipts when an invoice is paid' },
  { kind: 'payment_failed', label: "Failed payments of a subscription's renewal or retry" },
  { kind: 'installment_failed', label: "Failed installments of a payment plan's automatic charge" },
  { kind: 'renewal_reminder', label: 'Upcoming renewal reminders (days before: below)' },
  { kind: 'trial_ending', label: 'Trial ending reminders (days before: below)' },
  { kind: 'team_invitation', label: 'Team invitations (to the invited person)' },
];

/** A reminder's days before (docs/decisions.md §31): empty for none. */
function DaysField({ label, name, value }: { label: string; name: string; value: number | null }) {
  return (
    <label className="field">
      {label}: days before (1 to 30; empty: none)
      <input name={name} inputMode="numeric" defaultValue={value ?? ''} maxLength={3} />
    </label>
  );
}

/** "7" as 7, empty as null (none); anything else is sent as is, for the API to name. */
function reminderDaysOf(value: FormDataEntryValue | null): unknown {
  const text = String(value ?? '').trim();
  if (!text) return null;
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** The emails sent to the account's customers: their From and the kinds sent (docs/api.md, "Emails"). */
function EmailSection({ session }: { session: Session }) {
  const { account, editable, save, notice, setNotice } = useAccountSettings(session, () => 'Saved.');
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const from = String(form.get('email_from') ?? '').trim();
    setNotice(undefined);
    const color = String(form.get('brand_color') ?? '').trim();
    save.mutate({
      email_from: from || null,
      emails_off: EMAIL_KINDS.filter(({ kind }) => !form.has(`send_${kind}`)).map(({ kind }) => kind),
      renewal_reminder_days: reminderDaysOf(form.get('renewal_reminder_days')),
      trial_end_reminder_days: reminderDaysOf(form.get('trial_end_reminder_days')),
      brand_color: color || null,
    });
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
        <form
          onSubmit={submit}
          key={[
            data.email_from,
            data.emails_off.join(','),
            data.renewal_reminder_days,
            data.trial_end_reminder_days,
            data.brand_color,
          ].join('|')}
        >
          <label className="field">
            From address (empty: the service’s default, under the account’s name)
            <input name="email_from" type="email" defaultValue={data.email_from ?? ''} maxLength={254} />
          </label>
          <fieldset className="field">
            <legend>Send</legend>
            {EMAIL_KINDS.map(({ kind, label }) => (
              <label key={kind} className="check">
                <input type="checkbox" name={`send_${kind}`} defaultChecked={!data.emails_off.includes(kind)} /> {label}
              </label>
            ))}
          </fieldset>
          <DaysField label="Renewal reminder" name="renewal_reminder_days" value={data.renewal_reminder_days} />
          <DaysField
            label="Trial ending reminder"
            name="trial_end_reminder_days"
            value={data.trial_end_reminder_days}
          />
          <label className="field">
            Colour of emails and customer pages (#rrggbb; empty: the service’s blue)
            <input name="brand_color" defaultValue={data.brand_color ?? ''} maxLength={7} placeholder="#1f6feb" />
          </label>
          <Submit busy={save.isPending} label="Save emails" busyLabel="Saving…" />
        </form>
      )}
      <Outcome notice={notice} error={save.error} />
    </section>
  );
}

interface DunningSettings {
  retry_days: number[];
  outcome: 'cancel' | 'pause' | 'keep_active';
}

const OUTCOMES: { value: DunningSettings['outcome']; label: string }[] = [
  { value: 'cancel', label: 'Cancel the subscription' },
  { value: 'pause', label: 'Pause the subscription' },
  { value: 'keep_active', label: 'Keep it active (the invoice stays open)' },
];

/** Turns "1, 3, 7" into [1, 3, 7]; anything that is not a number is sent as is, for the API to name. */
function daysOf(text: string): unknown[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((part) => (/^-?\d+$/.test(part) ? Number(part) : part));
}

function DunningSection() {
  const queryClient = useQueryClient();
  const dunning = useQuery({
    queryKey: ['dunning-settings'],
    queryFn: () => api<DunningSettings>('GET', '/settings/dunning'),
  });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: { retry_days: unknown[]; outcome: string }) =>
      api<DunningSettings>('PUT', '/settings/dunning', input),
    onSuccess: (saved) => {
      queryClient.setQueryData(['dunning-settings'], saved);
      setNotice('Saved. The schedule applies to renewal charges that fail from now on.');
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setNotice(undefined);
    save.mutate({ retry_days: daysOf(String(form.get('retry_days') ?? '')), outcome: String(form.get('outcome')) });
  };
  return (
    <section className="card settings-section" aria-labelledby="dunning-heading">
      <h2 id="dunning-heading">Dunning</h2>
      <p className="muted">When a renewal charge fails, it is retried on these days after the failure.</p>
      {dunning.isPending && <Loading />}
      {dunning.isError && <Failure error={dunning.error} />}
      {dunning.data && (
        <form onSubmit={submit} key={`${dunning.data.retry_days.join()}|${dunning.data.outcome}`}>
          <label className="field">
            Retry on days (after the failed charge, ascending, comma-separated)
            <input name="retry_days" defaultValue={dunning.data.retry_days.join(', ')} inputMode="numeric" />
          </label>
          <Choices
            legend="When every retry has failed"
            name="outcome"
            options={OUTCOMES}
            current={dunning.data.outcome}
          />
          <Submit busy={save.isPending} label="Save dunning" busyLabel="Saving…" />
        </form>
      )}
      <Outcome notice={notice} error={save.error} />
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
function ProrationSection() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['proration-settings'],
    queryFn: () => api<{ proration_behavior: ProrationBehavior }>('GET', '/settings/proration'),
  });
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (behavior: string) =>
      api<{ proration_behavior: ProrationBehavior }>('PUT', '/settings/proration', { proration_behavior: behavior }),
    onSuccess: (saved) => {
      queryClient.setQueryData(['proration-settings'], saved);
      setNotice('Saved. It applies to subscription changes made from now on.');
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setNotice(undefined);
    save.mutate(String(new FormData(event.currentTarget).get('proration_behavior')));
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
        <form onSubmit={submit} key={current}>
          <Choices
            legend="By default, a change of items"
            name="proration_behavior"
            options={BEHAVIORS}
            current={current}
          />
          <Submit busy={save.isPending} label="Save proration" busyLabel="Saving…" />
        </form>
      )}
      <Outcome notice={notice} error={save.error} />
    </section>
  );
}

/** "30" as 30, empty as absent (unchanged); anything else is sent as is, for the API to name. */
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

/**
 * Business details (docs/api.md "Business details"): the seller's legal name, address, support email and phone,
 * and tax id that invoices, credit notes, the hosted invoice page and the invoice email show. Every role reads
 * them; a superadmin edits them. An emptied field is cleared; the field the API refuses is marked.
 */
function BusinessDetailsSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const key = ['business-details', session.account?.id];
  const details = useQuery({ queryKey: key, queryFn: () => api<BusinessDetails>('GET', '/settings/business-details') });
  const editable = session.account?.role === 'superadmin';
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: Record<string, unknown>) => api<BusinessDetails>('PUT', '/settings/business-details', input),
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
    const address = Object.fromEntries(
      ADDRESS_PARTS.flatMap(([part]) => (value(`address.${part}`) ? [[part, value(`address.${part}`)]] : [])),
    );
    setNotice(undefined);
    save.mutate({
      ...Object.fromEntries(DETAIL_FIELDS.map(([name]) => [name, value(name)])),
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

function wholeDaysOf(value: FormDataEntryValue | null): unknown {
  const text = String(value ?? '').trim();
  if (!text) return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

/**
 * Payment plans (docs/api.md "Payment plan settings"): off for a new account. Every role reads them; a
 * superadmin turns them on or off and sets the days a past_due plan waits before it is defaulted.
 */
function PaymentPlansSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const key = ['payment-plan-settings', session.account?.id];
  const settings = useQuery({
    queryKey: key,
    queryFn: () => api<PaymentPlanSettings>('GET', '/settings/payment-plans'),
  });
  const editable = session.account?.role === 'superadmin';
  const [notice, setNotice] = useState<string>();
  const save = useMutation({
    mutationFn: (input: { enabled: boolean; default_after_days?: unknown }) =>
      api<PaymentPlanSettings>('PUT', '/settings/payment-plans', input),
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
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setNotice(undefined);
    save.mutate({ enabled: form.has('enabled'), default_after_days: wholeDaysOf(form.get('default_after_days')) });
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
        <form onSubmit={submit} key={`${data.enabled}|${data.default_after_days}`}>
          <label className="check">
            <input type="checkbox" name="enabled" defaultChecked={data.enabled} /> Payment plans on
          </label>
          <label className="field">
            Days a past due plan waits before it is defaulted (1 to 365)
            <input
              name="default_after_days"
              inputMode="numeric"
              defaultValue={data.default_after_days}
              maxLength={3}
              required
            />
          </label>
          <Submit busy={save.isPending} label="Save payment plans" busyLabel="Saving…" />
        </form>
      )}
      <Outcome notice={notice} error={save.error} />
    </section>
  );
}

interface Member {
  id: string;
  name: string;
  email: string;
  role: Role;
  disabled: boolean;
}

interface Invitation {
  id: string;
  email: string;
  role: Role;
  created: number;
  expires_at: number;
  /** When its email went (null: not emailed: switched off, no SMTP server, refused). */
  emailed_at: number | null;
  url?: string;
}

type Asking = { kind: 'role'; member: Member; role: Role } | { kind: 'remove'; member: Member };

function TeamSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const superadmin = session.account?.role === 'superadmin';
  const members = useQuery({
    queryKey: ['members', session.account?.id],
    queryFn: () => api<{ data: Member[] }>('GET', '/dashboard/api/members'),
  });
  const [asking, setAsking] = useState<Asking>();
  const [notice, setNotice] = useState<string>();
  const change = useMutation({
    mutationFn: async (ask: Asking) => {
      if (ask.kind === 'role') await api('PATCH', `/dashboard/api/members/${ask.member.id}`, { role: ask.role });
      else await api('DELETE', `/dashboard/api/members/${ask.member.id}`);
      return ask;
    },
    onSuccess: async (ask) => {
      setAsking(undefined);
      setNotice(
        ask.kind === 'role'
          ? `${ask.member.name} is now ${ask.role}.`
          : `${ask.member.name} was removed from the team.`,
      );
      await queryClient.invalidateQueries({ queryKey: ['members'] });
      // Changing one's own role changes what this dashboard may show.
      if (ask.member.id === session.user.id) await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
    // The refusal (the last superadmin) is shown under the table, the dialog closed.
    onError: () => setAsking(undefined),
  });

  return (
    <section className="card settings-section" aria-labelledby="team-heading">
      <h2 id="team-heading">Team</h2>
      {members.isPending && <Loading />}
      {members.isError && <Failure error={members.error} />}
      {members.data && (
        <div className="table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="hide-narrow">
                  Email
                </th>
                <th scope="col">Role</th>
                {superadmin && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {members.data.data.map((member) => (
                <tr key={member.id}>
                  <td>
                    {member.name}
                    {member.id === session.user.id && <span className="muted"> (you)</span>}
                    {member.disabled && <span className="badge badge-disabled">disabled</span>}
                    <div className="muted small member-email-narrow">{member.email}</div>
                  </td>
                  <td className="truncate hide-narrow">{member.email}</td>
                  <td>
                    {superadmin ? (
                      <select
                        aria-label={`Role of ${member.name}`}
                        value={member.role}
                        onChange={(event) => {
                          change.reset();
                          setNotice(undefined);
                          setAsking({ kind: 'role', member, role: event.target.value as Role });
                        }}
                      >
                        <Options values={ROLES} />
                      </select>
                    ) : (
                      <span className="capitalize">{member.role}</span>
                    )}
                  </td>
                  {superadmin && (
                    <td>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Remove ${member.name}`}
                        onClick={() => (change.reset(), setNotice(undefined), setAsking({ kind: 'remove', member }))}
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Outcome notice={notice} error={change.error} />
      {asking && (
        <Confirm
          title={
            asking.kind === 'role'
              ? `Make ${asking.member.name} ${asking.role}?`
              : `Remove ${asking.member.name} from the team?`
          }
          message={
            asking.kind === 'role'
              ? `${asking.member.email} gets what a ${asking.role} may do, from their next click.`
              : `${asking.member.email} loses access to this account at once; their user stays for other accounts.`
          }
          confirm={asking.kind === 'role' ? 'Change role' : 'Remove member'}
          danger={asking.kind === 'remove'}
          busy={change.isPending}
          onConfirm={() => change.mutate(asking)}
          onClose={() => setAsking(undefined)}
        />
      )}
      {superadmin && <Invitations accountId={session.account?.id} />}
    </section>
  );
}

function Invitations({ accountId }: { accountId: string | undefined }) {
  const queryClient = useQueryClient();
  const pending = useQuery({
    queryKey: ['invitations', accountId],
    queryFn: () => api<{ data: Invitation[] }>('GET', '/dashboard/api/invitations'),
  });
  const [created, setCreated] = useState<Invitation>();
  const invite = useMutation({
    mutationFn: (input: { email: string; role: string }) =>
      api<Invitation>('POST', '/dashboard/api/invitations', input),
    onSuccess: async (invitation) => {
      setCreated(invitation);
      await queryClient.invalidateQueries({ queryKey: ['invitations'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api('DELETE', `/dashboard/api/invitations/${id}`),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['invitations'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    setCreated(undefined);
    invite.mutate(
      { email: String(form.get('email') ?? ''), role: String(form.get('role')) },
      { onSuccess: () => element.reset() },
    );
  };

  return (
    <>
      <h3>Invite someone</h3>
      <form className="filters" onSubmit={submit}>
        <label>
          Email
          <input name="email" type="email" required />
        </label>
        <label>
          Invite as
          <select aria-label="Invite as" name="role" defaultValue="standard">
            <Options values={ROLES} />
          </select>
        </label>
        <Submit busy={invite.isPending} label="Invite" busyLabel="Inviting…" />
      </form>
      {invite.isError && <Failure error={invite.error} />}
      {created?.url && (
        <div className="invite-link" role="status">
          <p>
            {created.emailed_at !== null
              ? `Emailed to ${created.email}; you may also send them this link.`
              : `Not emailed: send this link to ${created.email}.`}{' '}
            It works once, until {formatDateTime(created.expires_at)}, and is not shown again:
          </p>
          <input
            readOnly
            aria-label={`Invitation link for ${created.email}`}
            value={created.url}
            onFocus={(event) => event.currentTarget.select()}
          />
        </div>
      )}
      <h3>Pending invitations</h3>
      {pending.isPending && <Loading />}
      {pending.isError && <Failure error={pending.error} />}
      {pending.data && pending.data.data.length === 0 && <p className="muted">No invitation is waiting.</p>}
      {pending.data && pending.data.data.length > 0 && (
        <div className="table-card">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col" className="hide-narrow">
                  Expires
                </th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pending.data.data.map((invitation) => (
                <tr key={invitation.id}>
                  <td className="truncate">{invitation.email}</td>
                  <td className="capitalize">{invitation.role}</td>
                  <td className="hide-narrow">{formatDateTime(invitation.expires_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Revoke the invitation of ${invitation.email}`}
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate(invitation.id)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoke.isError && <Failure error={revoke.error} />}
    </>
  );
}

function ProfileSection({ session }: { session: Session }) {
  const [notice, setNotice] = useState<string>();
  const change = useMutation({
    mutationFn: (input: { current_password: string; new_password: string }) =>
      api('POST', '/dashboard/api/session/password', input),
    onSuccess: () => setNotice('Password changed. Your other sessions were signed out.'),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setNotice(undefined);
    change.mutate(
      { current_password: String(data.get('current_password')), new_password: String(data.get('new_password')) },
      { onSuccess: () => form.reset() },
    );
  };
  return (
    <section className="card settings-section" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Your profile</h2>
      <dl className="facts">
        <dt>Name</dt>
        <dd>{session.user.name}</dd>
        <dt>Email</dt>
        <dd>{session.user.email}</dd>
        <dt>Role</dt>
        <dd className="capitalize">{session.account?.role}</dd>
      </dl>
      <h3>Change your password</h3>
      <form onSubmit={submit}>
        <input type="text" name="username" autoComplete="username" value={session.user.email} readOnly hidden />
        <label className="field">
          Current password
          <input name="current_password" type="password" autoComplete="current-password" required />
        </label>
        <label className="field">
          New password (10 characters or more)
          <input name="new_password" type="password" autoComplete="new-password" required minLength={10} />
        </label>
        <Submit busy={change.isPending} label="Change password" busyLabel="Changing…" />
      </form>
      <Outcome notice={notice} error={change.error} />
    </section>
  );
}
