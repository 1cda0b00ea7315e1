import { statusLabel } from './format';

/** A status as the API names it (`past_due` reads "past due"), coloured by it (styles.css `.badge-<status>`). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status}`}>{statusLabel(status)}</span>;
}

/** A yes-or-no state in words of its own ("active" / "inactive"), coloured as `on` or `off` statuses. */
export function StateBadge({
  on,
  label,
  onStatus = 'active',
  offStatus = 'canceled',
}: {
  on: boolean;
  label: [string, string];
  onStatus?: string;
  offStatus?: string;
}) {
  return <span className={`badge badge-${on ? onStatus : offStatus}`}>{on ? label[0] : label[1]}</span>;
}

/**
 * An invoice whose payment the customer disputed (docs/api.md, "Payment processors"): "Disputed" while the dispute
 * is open, then how it ended; coloured as a failure unless it was won.
 */
export function DisputeBadge({ dispute }: { dispute: { status: string; closed: boolean } }) {
  const colour = dispute.status === 'won' ? 'paid' : 'failed';
  return (
    <span className={`badge badge-${colour}`} title={`Dispute: ${statusLabel(dispute.status)}`}>
      {dispute.closed ? `Dispute ${statusLabel(dispute.status)}` : 'Disputed'}
    </span>
  );
}

/**
 * An open invoice whose payment its processor holds (a bank debit settles days later: docs/decisions.md §40):
 * neither paid nor retried until the bank answers.
 */
export function PaymentPendingBadge() {
  return (
    <span className="badge badge-pending" title="The bank has not settled the debit yet; the invoice waits for it">
      Payment pending
    </span>
  );
}
