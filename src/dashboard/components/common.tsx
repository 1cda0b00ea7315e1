import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Empty, Failure, Loading } from './feedback';
import { paramError } from './form';

/**
 * Transitional: the screens not yet on the form pattern and the table (./form.tsx, ./Table.tsx) import their
 * parts from here; this file goes once the last of them is.
 */
export { Empty, Failure, isNotFound, Loading, Notice, OutcomeNotice, ReadFailure, type Outcome } from './feedback';
export { StatusBadge } from '../components/badges';
export { DisclosureButton, Pager, PagesOf, StatusTabs } from '../components/lists';
export { paramError, useIdempotencyKeys } from './form';
export { objectPath, WorkflowLink } from '../components/links';

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
