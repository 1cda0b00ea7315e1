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
