import type { HostedInvoiceLink } from '../generated/prisma/client';
import { DAY_MS } from '../lib/durations';
import { queryRows, statementOf, type AnyTx, type Queryable } from '../db/sql';
import { open, seal } from '../lib/encryption';
import { hashPageToken, newPageToken, publicUrl } from '../lib/page-tokens';
import { config } from '../config';

/** What an invoice record carries of its hosted page's link (docs/decisions.md §29). */
export type HostedLinkRef = Pick<HostedInvoiceLink, 'tokenSealed' | 'keyId'>;

/** The sealed token is bound to its invoice: copied to another invoice's row it does not open. */
const sealContext = (invoiceId: string) => `hosted_invoice_links:${invoiceId}`;

/** Path of an invoice's hosted page (src/hosted-pages/hosted-invoice.routes.ts). */
export const HOSTED_INVOICE_PATH = '/hosted/invoices';

export function hostedInvoiceUrl(invoiceId: string, link: HostedLinkRef): string {
  const token = open({ ciphertext: link.tokenSealed, keyId: link.keyId }, sealContext(invoiceId));
  return publicUrl(`${HOSTED_INVOICE_PATH}/${token}`);
}

const INSERT_LINK = statementOf(
  'hosted_invoice_link_insert',
  `INSERT INTO hosted_invoice_links (invoice_id, account_id, token_hash, token_sealed, key_id, expires_at)
   VALUES ($1, $2, $3, $4, $5, $6)
   ON CONFLICT (invoice_id) DO UPDATE SET invoice_id = EXCLUDED.invoice_id
   RETURNING token_sealed AS "tokenSealed", key_id AS "keyId"`,
);

/**
 * The link of an invoice being finalized, in the finalization's transaction: a finalized invoice
 * always has one. An invoice that has one keeps it (the conflict answers the stored row).
 */
export async function createHostedInvoiceLink(tx: AnyTx, accountId: string, invoiceId: string): Promise<HostedLinkRef> {
  const link = newHostedLink(invoiceId);
  const [row] = await queryRows<HostedLinkRef>(tx, INSERT_LINK, [
    invoiceId,
    accountId,
    link.tokenHash,
    link.tokenSealed,
    link.keyId,
    link.expiresAt,
  ]);
  return row!;
}

/** A new invoice's link, for a statement that writes it with its invoice (insertFinalizedInvoiceWithLines). */
export interface NewHostedLink extends HostedLinkRef {
  tokenHash: string;
  expiresAt: Date;
}

export function newHostedLink(invoiceId: string): NewHostedLink {
  const token = newPageToken();
  const sealed = seal(token, sealContext(invoiceId));
  return {
    tokenHash: hashPageToken(token),
    tokenSealed: sealed.ciphertext,
    keyId: sealed.keyId,
    // A link expires in the real world's time, whatever clock its customer bills on.
    expiresAt: new Date(Date.now() + config.hostedInvoiceLinkDays * DAY_MS),
  };
}

const FIND_LINK = statementOf(
  'hosted_invoice_link_find',
  `SELECT invoice_id AS "invoiceId", account_id AS "accountId", expires_at AS "expiresAt"
   FROM hosted_invoice_links WHERE token_hash = $1`,
);

/** The invoice and account a hosted page's token names, with its expiry; undefined for an unknown token. */
export async function findHostedInvoiceLink(
  db: Queryable,
  token: string,
): Promise<{ invoiceId: string; accountId: string; expiresAt: Date } | undefined> {
  const [row] = await queryRows<{ invoiceId: string; accountId: string; expiresAt: Date }>(db, FIND_LINK, [
    hashPageToken(token),
  ]);
  return row;
}
