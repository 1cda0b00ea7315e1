import { type FormEvent, type ReactNode } from 'react';

export const INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** Money typed as the reader writes it (`49`, `49.9`, `49.90`) in integer cents, or undefined if it is not money. */
export function parseCents(text: string): number | undefined {
  const match = /^\s*(\d{1,6})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export function ErrorLine({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error instanceof Error ? error.message : 'Something went wrong.'}
    </p>
  );
}

/** A form that shows the API's refusal under it and stays filled, so the reader can correct it. */
export function CatalogForm(props: {
  label: string;
  submit: string;
  busy: boolean;
  error: unknown;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit();
  };
  return (
    <form className="card catalog-form" onSubmit={submit} aria-label={props.label}>
      <div className="filters">{props.children}</div>
      <ErrorLine error={props.error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
        <button type="submit" disabled={props.busy}>
          {props.busy ? 'Saving…' : props.submit}
        </button>
      </div>
    </form>
  );
}
