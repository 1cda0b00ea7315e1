import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
} from 'react';
import { ApiFailure, newIdempotencyKey } from '../api/client';
import { Failure, Notice } from './feedback';

/**
 * The dashboard's form pattern (docs/architecture.md, "The dashboard"): fields named by their label alone,
 * the API's refusal shown beside the field its `param` names (below the fields when no field shows it), a
 * submit that runs once for a double click, and the button busy while the action runs. A form's action is a
 * react-query mutation; what the form checks itself before asking (an amount that is not money) is thrown by
 * the mutation as a `fieldFailure`, so it is shown as the API's refusals are.
 */

/** The API's refusal when it names one of `params` (a 400's `param`): the words its field shows beside it. */
export function paramError(error: unknown, ...params: string[]): string | undefined {
  if (!(error instanceof ApiFailure) || error.error.param === undefined) return undefined;
  return params.includes(error.error.param) ? error.message : undefined;
}

/** How a form lays out its fields: stacked (a settings section), stacked without the field spacing (the sign-in
 * card), on one line (a filter bar), on one line in a card with Cancel (the catalog), or in a dialog. */
export type Layout = 'stacked' | 'plain' | 'inline' | 'card' | 'dialog';

interface FormState {
  error: unknown;
  layout: Layout;
  /** A field says it shows the refusals naming `param`; the answer takes that back. */
  claim: (param: string) => () => void;
}

const FormContext = createContext<FormState>({ error: undefined, layout: 'stacked', claim: () => () => undefined });

/** The params the form's fields show beside themselves, counted as they mount and unmount. */
function useClaimedParams() {
  const [claimed, setClaimed] = useState<ReadonlyMap<string, number>>(new Map());
  const claim = useCallback((param: string) => {
    const add = (step: number) =>
      setClaimed((current) => {
        const next = new Map(current);
        const count = (next.get(param) ?? 0) + step;
        if (count > 0) next.set(param, count);
        else next.delete(param);
        return next;
      });
    add(1);
    return () => add(-1);
  }, []);
  return { claimed, claim };
}

/**
 * Runs an action once until it has been busy and is no longer: the second click of a double click comes before
 * the page shows the button disabled, and would send it again (a keyed refund then answers 409 "in progress").
 * A new refusal ends it too: one the form finds before asking (a `fieldFailure` thrown by the mutation) comes
 * before the page ever renders it busy.
 */
export function useOnce(busy: boolean, error?: unknown): (run: () => void) => void {
  const started = useRef(false);
  useEffect(() => {
    if (!busy) started.current = false;
  }, [busy, error]);
  return (run) => {
    if (started.current) return;
    started.current = true;
    run();
  };
}

export interface FormProps {
  children: ReactNode;
  /** Starts the form's action (a mutation's mutate): given the form, for the forms that read it as FormData. */
  onSubmit: (form: HTMLFormElement) => void;
  /** The action's state: its button is busy while it runs, its refusal is shown. Filters have none. */
  action?: { isPending: boolean; error: unknown };
  submit: string;
  busyLabel?: string;
  /** The submit button's class (`secondary` for a filter, `danger` for what cannot be undone). */
  submitClass?: string;
  disabled?: boolean;
  onCancel?: () => void;
  cancelLabel?: string;
  layout?: Layout;
  /** The form's accessible name (a landmark screens and tests find it by). */
  label?: string;
  /** What the form's last action did ("Saved."), shown under its buttons. */
  notice?: string;
  className?: string;
  /** Above the fields: a dialog's heading and question. */
  heading?: ReactNode;
  /** After the submit button: a Clear beside a filter's Apply. */
  extra?: ReactNode;
}

const FORM_CLASSES: Record<Layout, string | undefined> = {
  stacked: undefined,
  plain: undefined,
  inline: 'filters',
  card: 'card catalog-form',
  dialog: undefined,
};

export function Form(props: FormProps) {
  const layout = props.layout ?? 'stacked';
  const busy = props.action?.isPending ?? false;
  const error = props.action?.error;
  const once = useOnce(busy, error);
  const { claimed, claim } = useClaimedParams();
  const param = error instanceof ApiFailure ? error.error.param : undefined;
  const unclaimed = error && !(param !== undefined && claimed.has(param)) ? error : undefined;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    if (props.action) once(() => props.onSubmit(form));
    else props.onSubmit(form);
  };
  const button = (
    <button type="submit" className={props.submitClass} disabled={busy || props.disabled}>
      {busy ? (props.busyLabel ?? 'Working…') : props.submit}
    </button>
  );
  const buttons = props.onCancel ? (
    <div className="actions">
      <button type="button" className="secondary" onClick={props.onCancel} disabled={busy}>
        {props.cancelLabel ?? 'Cancel'}
      </button>
      {button}
    </div>
  ) : (
    button
  );
  const className = [FORM_CLASSES[layout], props.className].filter(Boolean).join(' ') || undefined;
  const state = { error, layout, claim };
  if (layout === 'inline')
    return (
      <FormContext.Provider value={state}>
        <form className={className} aria-label={props.label} onSubmit={submit}>
          {props.heading}
          {props.children}
          {button}
          {props.extra}
        </form>
        {unclaimed ? <Failure error={unclaimed} /> : null}
        <Notice text={props.notice} />
      </FormContext.Provider>
    );
  return (
    <FormContext.Provider value={state}>
      <form className={className} aria-label={props.label} onSubmit={submit}>
        {props.heading}
        {layout === 'card' ? <div className="filters">{props.children}</div> : props.children}
        {unclaimed ? <Failure error={unclaimed} /> : null}
        {buttons}
        {props.extra}
        <Notice text={props.notice} />
      </form>
    </FormContext.Provider>
  );
}

/** The label's class in the form's layout: `field` where fields stack with their spacing. */
function useFieldClass(className: string | undefined): string | undefined {
  const { layout } = useContext(FormContext);
  if (className !== undefined) return className || undefined;
  return layout === 'stacked' || layout === 'dialog' ? 'field' : undefined;
}

/** The refusal shown beside a field: the one given, else the form's refusal naming `param` (which the field claims). */
function useFieldError(param: string | undefined, given: string | undefined): string | undefined {
  const { error, claim } = useContext(FormContext);
  useEffect(() => (param ? claim(param) : undefined), [param, claim]);
  return given ?? (param ? paramError(error, param) : undefined);
}

interface LabelledProps {
  /** The field's accessible name, alone (an error or a hint beside it is its description). */
  label: ReactNode;
  /** The API's name of what the field holds (`email`, `items.0.quantity`): its refusals are shown here. */
  param?: string;
  /** A refusal of the field's own (the form's check). */
  error?: string;
  hint?: ReactNode;
  /** The label's class instead of the layout's (`grow`, `checkbox`); '' for none. */
  className?: string;
}

/** The label, the control and what is shown beside it: a hint, and the refusal as an alert that describes the control. */
function Labelled(
  props: LabelledProps & { control: (aria: Record<string, string | boolean | undefined>) => ReactNode },
) {
  const labelId = useId();
  const errorId = useId();
  const className = useFieldClass(props.className);
  const error = useFieldError(props.param, props.error);
  return (
    <label className={className}>
      <span id={labelId}>{props.label}</span>
      {props.control({
        'aria-labelledby': labelId,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': error ? errorId : undefined,
      })}
      {props.hint}
      {error && (
        <span className="error" id={errorId} role="alert">
          {error}
        </span>
      )}
    </label>
  );
}

/** A field's props apart: what its label shows, and what goes to its control. */
function labelledOf<Rest>({ label, param, error, hint, className, ...rest }: LabelledProps & Rest) {
  return { labelled: { label, param, error, hint, className }, rest };
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'className' | 'onChange'>;

/** A labelled input; `onValue` takes what is typed. */
export function Field(
  props: LabelledProps & InputProps & { inputClassName?: string; onValue?: (value: string) => void },
) {
  const { labelled, rest } = labelledOf(props);
  const { inputClassName, onValue, ...input } = rest;
  return (
    <Labelled
      {...labelled}
      control={(aria) => (
        <input
          autoComplete="off"
          {...input}
          {...aria}
          className={inputClassName}
          onChange={onValue ? (event) => onValue(event.target.value) : undefined}
        />
      )}
    />
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'className' | 'onChange'>;

/** A labelled select, named by its label alone (not by its options' text); `onValue` takes what is picked. */
export function SelectField(props: LabelledProps & SelectProps & { onValue?: (value: string) => void }) {
  const { labelled, rest } = labelledOf(props);
  const { onValue, ...select } = rest;
  return (
    <Labelled
      {...labelled}
      control={(aria) => (
        <select {...select} {...aria} onChange={onValue ? (event) => onValue(event.target.value) : undefined} />
      )}
    />
  );
}

/** A select's options, each value its own label. */
export function Options({ values }: { values: readonly string[] }) {
  return values.map((value) => (
    <option key={value} value={value}>
      {value}
    </option>
  ));
}

/** A checkbox, its label after it. */
export function Check({
  label,
  className = 'check',
  onChecked,
  ...input
}: { label: ReactNode; className?: string; onChecked?: (checked: boolean) => void } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  'className' | 'onChange' | 'type'
>) {
  return (
    <label className={className}>
      <input type="checkbox" {...input} onChange={onChecked ? (event) => onChecked(event.target.checked) : undefined} />{' '}
      {label}
    </label>
  );
}

/** Radio buttons for one choice: `value` and `onValue` hold it, or (in a form read as FormData) `initial`. */
export function Choices<Value extends string>(props: {
  legend: string;
  name: string;
  options: readonly { value: Value; label: ReactNode }[];
  value?: Value;
  onValue?: (value: Value) => void;
  initial?: Value;
}) {
  return (
    <fieldset className="choices">
      <legend>{props.legend}</legend>
      {props.options.map((option) => (
        <label key={option.value}>
          <input
            type="radio"
            name={props.name}
            value={option.value}
            checked={props.onValue ? props.value === option.value : undefined}
            defaultChecked={props.onValue ? undefined : props.initial === option.value}
            onChange={props.onValue ? () => props.onValue!(option.value) : undefined}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
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

/** What a person typed as a number: NaN when it is not one, which JSON sends as null and the API refuses by name. */
export function numberOf(text: string): number {
  const trimmed = text.trim().replace(',', '.');
  return trimmed === '' ? NaN : Number(trimmed);
}
