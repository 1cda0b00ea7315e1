import type { ReactNode } from 'react';

/**
 * One term of a card of facts (`<dl>`) and its value; nothing when the value is absent (null, undefined, false),
 * so a fact that does not apply (a due date of an invoice charged automatically) is left out, not shown empty.
 */
export function Fact({ term, children, className }: { term: ReactNode; children: ReactNode; className?: string }) {
  if (children === null || children === undefined || children === false) return null;
  return (
    <>
      <dt className={className}>{term}</dt>
      <dd className={className}>{children}</dd>
    </>
  );
}
