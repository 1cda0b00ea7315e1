import { type ReactNode } from 'react';

/**
 * Transitional: the screens not yet on the form pattern and the table (./form.tsx, ./Table.tsx) import their
 * parts from here; this file goes once the last of them is.
 */
export { Empty, Failure, isNotFound, Loading, Notice, OutcomeNotice, ReadFailure, type Outcome } from './feedback';
export { DisputeBadge, StatusBadge } from '../components/badges';
export { DisclosureButton, Pager, PagesOf, StatusTabs } from '../components/lists';
export { paramError, useIdempotencyKeys } from './form';
export { objectPath, WorkflowLink } from '../components/links';

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
