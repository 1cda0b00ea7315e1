import { statusLabel } from './format';
import { Link } from '../router';

/** Previous and next around the page's label; nothing for a single page. */
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

/** The pager of a paginated list answer (`meta.pagesTotal`); nothing before the first answer. */
export function PagesOf({
  list,
  page,
  onPage,
}: {
  list: { meta: { pagesTotal: number } } | undefined;
  page: number;
  onPage: (page: number) => void;
}) {
  if (!list) return null;
  const pages = Math.max(1, list.meta.pagesTotal);
  return <Pager page={page} hasNext={page < list.meta.pagesTotal} onPage={onPage} label={`Page ${page} of ${pages}`} />;
}

/** A list's status filter as links (All first); `to` gives the list's address for a status ('' for all). */
export function StatusTabs({
  statuses,
  current,
  to,
  label = 'Status',
}: {
  statuses: readonly string[];
  current: string;
  to: (status: string) => string;
  label?: string;
}) {
  return (
    <nav className="tabs" aria-label={label}>
      {['', ...statuses].map((value) => (
        <Link key={value || 'all'} to={to(value)} aria-current={current === value ? 'page' : undefined}>
          {value ? statusLabel(value) : 'All'}
        </Link>
      ))}
    </nav>
  );
}

/** A button that shows or hides a detail (a payload, an event's JSON) in the row or block it controls. */
export function DisclosureButton(props: {
  shown: boolean;
  /** The id of what it shows. */
  controls: string;
  /** What it is a detail of, for its accessible name (`payload of customer.created evt_...`). */
  of: string;
  label: string;
  onToggle: () => void;
}) {
  const verb = props.shown ? 'Hide' : 'Show';
  return (
    <button
      type="button"
      className="secondary"
      aria-expanded={props.shown}
      aria-controls={props.shown ? props.controls : undefined}
      aria-label={`${verb} ${props.label} of ${props.of}`}
      onClick={props.onToggle}
    >
      {verb} {props.label}
    </button>
  );
}
