import { fieldFailure } from '../api/client';
import { type Role } from '../api/types';
import { Failure, Notice } from '../components/common';

export const ROLES: Role[] = ['standard', 'developer', 'superadmin'];

/**
 * A whole number typed in a settings field, for the typed client's body; anything else is refused here, beside the
 * field `param` names, as the API would (the API still judges the number: its bounds, its order).
 */
export function wholeNumberOf(text: string, param: string): number {
  if (!/^\d+$/.test(text)) throw fieldFailure(param, `${param}: "${text}" is not a whole number of days.`);
  return Number(text);
}

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
