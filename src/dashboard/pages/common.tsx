import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ApiFailure, newIdempotencyKey } from '../api';
import { statusLabel } from '../format';
import { Link } from '../router';

/** The dashboard's page of an object named by its id, where there is one. */
export function objectPath(id: string): string | null {
  if (id.startsWith('cus_')) return `/customers/${id}`;
  if (id.startsWith('sub_')) return `/subscriptions/${id}`;
  if (id.startsWith('pp_')) return `/payment-plans/${id}`;
  // Invoices are UUIDs.
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/.test(id)) return `/invoices/${id}`;
  return null;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{statusLabel(status)}</span>;
}

export function Loading() {
  return (
    <p className="muted" role="status">
      Loading…
    </p>
  );
}

export function Failure({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 404;
}

/**
 * A detail page whose object could not be read: "not found" for a 404 (an id of another account reads
 * the same as an unknown one), the error otherwise. `kind` is the object's name and `list` its list's path.
 */
export function ReadFailure({ error, kind, id, list }: { error: unknown; kind: string; id: string; list: string }) {
  if (!isNotFound(error)) return <Failure error={error} />;
  return (
    <>
      <h1>{kind[0]!.toUpperCase() + kind.slice(1)} not found</h1>
      <p>
        There is no {kind} {id} in this account. <Link to={list}>All {kind}s</Link>
      </p>
    </>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="card empty">{children}</div>;
}

export function Pager({
  page,
  hasNext,
  onPage,
  label,
}: {
  page: number;
  hasNext: boolean;
  onPage: (page: number) => void;
  label?: string;
}) {
  if (page === 1 && !hasNext) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>{label ?? `Page ${page}`}</span>
      <button type="button" className="secondary" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Asks before acting: a modal dialog (the browser's own <dialog>, so focus and Escape behave). */
export function Confirm(props: {
  /** What the dialog asks for besides yes or no (an amount). */
  children?: ReactNode;
  title: string;
  message: string;
  confirm: string;
  danger: boolean;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  // A double click confirms once: its second click comes before the page shows the button disabled, and
  // would send the action again (a keyed refund then answers 409 "in progress" beside "Refunded.").
  // Another confirm is taken once the action is no longer busy (a refusal leaves the dialog open).
  const confirmed = useRef(false);
  useEffect(() => {
    if (!props.busy) confirmed.current = false;
  }, [props.busy]);
  const confirm = () => {
    if (confirmed.current) return;
    confirmed.current = true;
    props.onConfirm();
  };
  return (
    <dialog ref={dialog} className="card dialog" aria-labelledby="confirm-title" onClose={props.onClose}>
      <h2 id="confirm-title">{props.title}</h2>
      <p>{props.message}</p>
      {props.children}
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onClose} disabled={props.busy}>
          Keep it as it is
        </button>
        <button type="button" className={props.danger ? 'danger' : undefined} onClick={confirm} disabled={props.busy}>
          {props.busy ? 'Working…' : props.confirm}
        </button>
      </div>
    </dialog>
  );
}

/** A list's status filter as links (All first); `to` gives the list's address for a status ('' for all). */
export function StatusTabs({
  statuses,
  current,
  to,
}: {
  statuses: readonly string[];
  current: string;
  to: (status: string) => string;
}) {
  return (
    <nav className="tabs" aria-label="Status">
      {['', ...statuses].map((value) => (
        <Link key={value || 'all'} to={to(value)} aria-current={current === value ? 'page' : undefined}>
          {value ? statusLabel(value) : 'All'}
        </Link>
      ))}
    </nav>
  );
}

/** What an action just did, read out by screen readers; nothing when there is nothing to say. */
export function Notice({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="notice" role="status">
      {text}
    </p>
  );
}

/** The object's workflow in the Temporal Web UI (operators' view of the same object), in a new tab. */
export function WorkflowLink({ url }: { url: string }) {
  return (
    <a className="button-link" href={url} target="_blank" rel="noreferrer">
      Workflow in Temporal
    </a>
  );
}

/** The pager of a paginated list answer (`meta.pagesTotal`); nothing before the first answer. */
export function PagesOf({
  list,
  page,
  onPage,
}: {
  list: { meta: { pagesTotal: number } } | undefined;
  page: number;
  onPage: (page: number) => void;
}) {
  if (!list) return null;
  const pages = Math.max(1, list.meta.pagesTotal);
  return <Pager page={page} hasNext={page < list.meta.pagesTotal} onPage={onPage} label={`Page ${page} of ${pages}`} />;
}

/** The API's refusal when it names one of `params` (a 400's `param`): the words its field shows beside it. */
export function paramError(error: unknown, ...params: string[]): string | undefined {
  if (!(error instanceof ApiFailure) || error.error.param === undefined) return undefined;
  return params.includes(error.error.param) ? error.message : undefined;
}

/**
 * A form in a modal dialog (the browser's own <dialog>): fields as children, the API's refusal shown in it:
 * beside its field when the refusal names one of `fieldParams` (the field shows it, see paramError), below
 * the fields otherwise. A double click submits once, as Confirm confirms once.
 */
export function FormDialog(props: {
  children: ReactNode;
  title: string;
  submit: string;
  busy: boolean;
  error: unknown;
  onSubmit: () => void;
  onClose: () => void;
  /** The `param`s of the API's refusals that a field of the form shows beside it. */
  fieldParams?: string[];
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  // The second click of a double click comes before the page shows the button disabled: it would send again.
  const submitted = useRef(false);
  useEffect(() => {
    if (!props.busy) submitted.current = false;
  }, [props.busy]);
  const atField = paramError(props.error, ...(props.fieldParams ?? [])) !== undefined;
  return (
    <dialog ref={dialog} className="card dialog" aria-labelledby="form-title" onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (submitted.current) return;
          submitted.current = true;
          props.onSubmit();
        }}
      >
        <h2 id="form-title">{props.title}</h2>
        {props.children}
        {props.error && !atField ? <Failure error={props.error} /> : null}
        <div className="actions">
          <button type="button" className="secondary" onClick={props.onClose} disabled={props.busy}>
            Cancel
          </button>
          <button type="submit" disabled={props.busy}>
            {props.busy ? 'Working…' : props.submit}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** A labelled text input of a form; `error`, the API's refusal of this field (paramError), is shown beside it. */
export function TextField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: string;
  required?: boolean;
  autoComplete?: string;
  inputMode?: 'numeric' | 'decimal' | 'text';
  error?: string;
}) {
  const errorId = useId();
  const labelId = useId();
  return (
    <label className="field">
      <span id={labelId}>{props.label}</span>
      <input
        // Named by its label alone: the error shown inside the label is its description.
        aria-labelledby={labelId}
        type={props.type ?? 'text'}
        value={props.value}
        required={props.required}
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.inputMode}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errorId : undefined}
        onChange={(event) => props.onChange(event.target.value)}
      />
      {props.error && (
        <span className="error" id={errorId} role="alert">
          {props.error}
        </span>
      )}
    </label>
  );
}

/** What an action that moves money came to, once known: its words, and whether it went through. */
export interface Outcome {
  tone: 'success' | 'failure' | 'pending';
  text: string;
}

/** An action's outcome: a failure (a decline) as an alert, read out at once; a success or a wait as a status. */
export function OutcomeNotice({ outcome }: { outcome: Outcome | undefined }) {
  if (!outcome) return null;
  if (outcome.tone === 'failure')
    return (
      <p className="error outcome" role="alert">
        {outcome.text}
      </p>
    );
  return <Notice text={outcome.text} />;
}

/**
 * Idempotency-Keys for one form's sends: the same key while the body is the same (a double click, a
 * second submit after a lost answer: the API answers the first result again), a new one when the
 * body changes (a corrected form is another request: reusing the key would be refused) or after
 * `done` (the next identical request is meant as a new one).
 */
export function useIdempotencyKeys(): { keyFor: (body: unknown) => string; done: () => void } {
  const last = useRef<{ body: string; key: string } | undefined>(undefined);
  return {
    keyFor: (body) => {
      const text = JSON.stringify(body ?? null);
      if (last.current?.body !== text) last.current = { body: text, key: newIdempotencyKey() };
      return last.current.key;
    },
    done: () => {
      last.current = undefined;
    },
  };
}

/** A button that shows or hides a detail (a payload, an event's JSON) in the row or block it controls. */
export function DisclosureButton(props: {
  shown: boolean;
  /** The id of what it shows. */
  controls: string;
  /** What it is a detail of, for its accessible name (`payload of customer.created evt_...`). */
  of: string;
  label: string;
  onToggle: () => void;
}) {
  const verb = props.shown ? 'Hide' : 'Show';
  return (
    <button
      type="button"
      className="secondary"
      aria-expanded={props.shown}
      aria-controls={props.shown ? props.controls : undefined}
      aria-label={`${verb} ${props.label} of ${props.of}`}
      onClick={props.onToggle}
    >
      {verb} {props.label}
    </button>
  );
}

/** What a list shows instead of its items: loading, the API's refusal, or its empty state; null when there are items. */
export function listPlaceholder(
  query: { isPending: boolean; isError: boolean; error: unknown; data?: { data: unknown[] } },
  empty: string,
): ReactNode {
  if (query.isPending) return <Loading />;
  if (query.isError) return <Failure error={query.error} />;
  if (query.data?.data.length === 0)
    return (
      <Empty>
        <p>{empty}</p>
      </Empty>
    );
  return null;
}

/** A table's header row: `wide` columns are hidden on narrow screens, `hidden` ones named for screen readers only. */
export function TableHead({ columns }: { columns: (string | { label: string; wide?: boolean; hidden?: boolean })[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => {
          const { label, wide, hidden } = typeof column === 'string' ? { label: column } : column;
          return (
            <th key={label} scope="col" className={wide ? 'hide-narrow' : undefined}>
              {hidden ? <span className="visually-hidden">{label}</span> : label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** An amount typed in a currency's units ("12.50", read by centsFromText), with the hint that it is not one. */
export function AmountField(props: {
  label: ReactNode;
  value: string;
  onChange: (text: string) => void;
  invalid: boolean;
}) {
  return (
    <label className="field">
      {props.label}
      <input
        inputMode="decimal"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.invalid}
      />
      {props.invalid && <span className="error">Write an amount such as 12.50.</span>}
    </label>
  );
}
