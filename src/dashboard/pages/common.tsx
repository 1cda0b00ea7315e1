import type { ReactNode } from 'react';
import { ApiFailure } from '../api';
import { statusLabel } from '../format';

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
