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
