import { useEffect, useRef, type ReactNode } from 'react';

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
