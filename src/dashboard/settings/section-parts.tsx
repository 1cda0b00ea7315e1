import { type Role } from '../api/types';
import { Failure, Notice } from '../components/common';

export const ROLES: Role[] = ['standard', 'developer', 'superadmin'];

export function Submit({ busy, label, busyLabel }: { busy: boolean; label: string; busyLabel: string }) {
  return (
    <button type="submit" disabled={busy}>
      {busy ? busyLabel : label}
    </button>
  );
}

/** What a section's last action did: its notice, or the API's refusal as it words it. */
export function Outcome({ notice, error }: { notice: string | undefined; error: Error | null }) {
  return (
    <>
      <Notice text={notice} />
      {error && <Failure error={error} />}
    </>
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

/** Radio buttons for one setting, the current value checked. */
export function Choices({
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
