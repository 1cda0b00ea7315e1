import type { Invoice } from '../api/types';

/**
 * The invoice's document and its page for the customer, once finalized: the PDF (GET /invoices/{id}/pdf, read
 * with the session) and the hosted invoice page (`hosted_invoice_url`), each in a new tab.
 */
export function InvoiceLinks({ invoice }: { invoice: Invoice }) {
  if (invoice.number === null) return null;
  return (
    <>
      <a
        className="button-link"
        href={`/invoices/${encodeURIComponent(invoice.id)}/pdf`}
        target="_blank"
        rel="noreferrer"
        aria-label={`PDF of ${invoice.number}`}
      >
        PDF
      </a>
      {invoice.hosted_invoice_url && (
        <a
          className="button-link"
          href={invoice.hosted_invoice_url}
          target="_blank"
          rel="noreferrer"
          aria-label={`Hosted page of ${invoice.number}, as the customer sees it`}
        >
          Hosted page
        </a>
      )}
    </>
  );
}

export function Tax({ taxRate, amount, behavior }: { taxRate: string; amount: string; behavior: string }) {
  return (
    <>
      <dt>
        Tax <code className="small">{taxRate}</code>
        {behavior === 'inclusive' ? ' (included)' : ''}
      </dt>
      <dd>{amount}</dd>
    </>
  );
}
