import type { ReactNode } from 'react';
import { ApiFailure } from '../api/client';
import { Link } from '../router';

/** What a screen shows while it reads, when it fails, when it has nothing, and what an action did. */

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

export function Empty({ children }: { children: ReactNode }) {
  return <div className="card empty">{children}</div>;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 404;
}

/** A read's state as react-query gives it: the data once read, the error once refused. */
export interface QueryState<Data> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: Data | undefined;
}

/** The data of `query` once read (`children` shows it), else its loading line or its failure. */
export function Loaded<Data>({ query, children }: { query: QueryState<Data>; children: (data: Data) => ReactNode }) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <Failure error={query.error} />;
  return query.data === undefined ? null : children(query.data);
}

/**
 * A detail page whose object could not be read: "not found" for a 404 (an id of another account reads
 * the same as an unknown one), the error otherwise. `kind` is the object's name and `list` its list's path.
 */
export function ReadFailure({ error, kind, id, list }: { error: unknown; kind: string; id: string; list: string }) {
  if (!isNotFound(error)) return <Failure error={error} />;
  return (
    <>
      <h1>{kind[0]!.toUpperCase() + kind.slice(1)} not found</h1>
      <p>
        There is no {kind} {id} in this account. <Link to={list}>All {kind}s</Link>
      </p>
    </>
  );
}

/** What an action just did, read out by screen readers; nothing when there is nothing to say. */
export function Notice({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="notice" role="status">
      {text}
    </p>
  );
}

/** What an action that moves money came to, once known: its words, and whether it went through. */
export interface Outcome {
  tone: 'success' | 'failure' | 'pending';
  text: string;
}

/** An action's outcome: a failure (a decline) as an alert, read out at once; a success or a wait as a status. */
export function OutcomeNotice({ outcome }: { outcome: Outcome | undefined }) {
  if (!outcome) return null;
  if (outcome.tone === 'failure')
    return (
      <p className="error outcome" role="alert">
        {outcome.text}
      </p>
    );
  return <Notice text={outcome.text} />;
}
