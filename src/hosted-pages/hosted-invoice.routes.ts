import { readAccountProfile } from '../accounts';
import { invoicePdf, receiptPdf } from '../documents';
import { creditNotePdf } from '../documents';
import { creditDestination } from '../documents';
import { pricingDetails, sellerLines, unitPrice } from '../documents';
import { listCreditNotes } from '../credit-notes';
import type { CreditNoteObject } from '../credit-notes';
import express, { type Request, type Response } from 'express';
import type { AppDeps } from '../http/app-deps';
import { getInvoice, InvoiceNotPayableError, paymentHeldByProcessor } from '../invoices';
import { findHostedInvoiceLink, HOSTED_INVOICE_PATH } from '../invoices';
import type { InvoiceObject } from '../invoices';
import { attemptReceipt, type ChargeReceipt } from '../transactions';
import { AUTHENTICATION_REQUIRED } from '../transactions';
import { formatMoney } from '../lib/money';
import { longDate } from './format';
import { findTaxRates } from '../catalog';
import { formKey, newFormKey, type FieldErrors } from './card-form';
import { cardEntryFields, cardFormAttributes, cardRefusal, NO_CARD_ENTRY, parseCardEntry } from './card-entry';
import { ApiError } from '../http/errors';
import { liveToken, csrfToken, csrfValid, formBody, html, type Html, sendNotice, sendPage } from './page';
import { declineMessage } from './decline-messages';
import { payFromHostedInvoicePage } from '../use-cases';
import { authenticateOnHostedInvoicePage } from '../use-cases';
import { hostedAuthentication } from '../use-cases';
import type { AuthenticationPlace } from '../payments';
import { HostedCardRefusedError } from '../use-cases';
import { hostedCardEntry, type HostedCardEntry } from '../gateway-settings';

/** The attempt key of a payment made from the page: the form's one-time key, apart from API keys. */
const attemptKeyOf = (formKeyValue: string) => `hosted:${formKeyValue}`;

interface LiveLink {
  accountId: string;
  invoiceId: string;
  /** The token's hash: the key of the page's CSRF tokens and rate limit. */
  hash: string;
}

/** The link of a request's token, or the page that says it is unknown (404) or expired (410). */
async function liveLink(deps: AppDeps, req: Request, res: Response): Promise<LiveLink | undefined> {
  const live = await liveToken(req, res, (token) => findHostedInvoiceLink(deps.prisma, token));
  return live && { accountId: live.record.accountId, invoiceId: live.record.invoiceId, hash: live.hash };
}

const money = (invoice: InvoiceObject, amount: number) => formatMoney(amount, invoice.currency);
const date = longDate;

const STATUS_LABEL: Record<InvoiceObject['status'], string> = {
  draft: 'Draft',
  open: 'Due',
  paid: 'Paid',
  void: 'Void',
};

function addressLines(address: InvoiceObject['customer_address']): string[] {
  if (!address) return [];
  return [
    address.line1,
    address.line2,
    [address.postal_code, address.city].filter(Boolean).join(' '),
    [address.state, address.country].filter(Boolean).join(', '),
  ].filter((line): line is string => Boolean(line));
}

/** The invoice as its customer reads it: who, what (lines and tax per rate), totals, paid and due. */
export function invoiceSummary(invoice: InvoiceObject, taxNames: Map<string, string>, pdfPath?: string): Html {
  return html`${invoiceHeading(invoice)} ${invoiceItems(invoice, taxNames, pdfPath)}`;
}

/** Who bills whom, the status and the amount paid or due, and the invoice's dates. */
function invoiceHeading(invoice: InvoiceObject): Html {
  const customerLines = [invoice.customer_name, invoice.customer_email, ...addressLines(invoice.customer_address)];
  return html` <section class="card" aria-labelledby="invoice-title">
    <p class="muted">${invoice.account_name ?? ''}</p>
    <h1 id="invoice-title">Invoice ${invoice.number ?? ''}</h1>
    <p><span class="status status-${invoice.status}">${STATUS_LABEL[invoice.status]}</span></p>
    <p class="amount">${money(invoice, invoice.status === 'paid' ? invoice.amount_paid : invoice.amount_remaining)}</p>
    <p class="muted">
      ${invoice.status === 'paid' ? `Paid ${date(invoice.status_transitions.paid_at)}` : invoice.due_date ? `Due ${date(invoice.due_date)}` : `Issued ${date(invoice.status_transitions.finalized_at)}`}
    </p>
    <div class="grid">
      ${
        sellerLines(invoice).length > 0
          ? html`<div>
              <h2>From</h2>
              <p>${[invoice.account_name ?? '', ...sellerLines(invoice)].map((line) => html`${line}<br />`)}</p>
            </div>`
          : html``
      }
      <div>
        <h2>Billed to</h2>
        <p>${customerLines.filter(Boolean).map((line) => html`${line}<br />`)}</p>
      </div>
      <div>
        <h2>Details</h2>
        <dl>
          <dt>Invoice number</dt>
          <dd>${invoice.number ?? ''}</dd>
          <dt>Issued</dt>
          <dd>${date(invoice.status_transitions.finalized_at)}</dd>
          ${
            invoice.due_date
              ? html`<dt>Due</dt>
                  <dd>${date(invoice.due_date)}</dd>`
              : html``
          }
          ${
            // As the PDF: a period only where the invoice bills one (a subscription's), never "the day to the day".
            invoice.subscription && invoice.period_end > invoice.period_start
              ? html`<dt>Period</dt>
                  <dd>${date(invoice.period_start)} to ${date(invoice.period_end)}</dd>`
              : html``
          }
        </dl>
      </div>
    </div>
  </section>`;
}

/** The lines, discounts and tax per rate, the totals, and the PDF's link. */
function invoiceItems(invoice: InvoiceObject, taxNames: Map<string, string>, pdfPath?: string): Html {
  const format = (cents: number) => money(invoice, cents);
  // A usage line's tiers or packages follow it (docs/decisions.md §46), each part's amount under the line's.
  const rows = invoice.lines.map(
    (line) =>
      html`<tr>
          <td>${line.description ?? ''}</td>
          <td class="num">${line.quantity}</td>
          <td class="num unit">${unitPrice(line, format)}</td>
          <td class="num">${format(line.amount)}</td>
        </tr>
        ${pricingDetails(line, format).map(
          (detail) =>
            html`<tr class="detail">
              <td colspan="3">${detail.label}</td>
              <td class="num">${detail.amount}</td>
            </tr>`,
        )}`,
  );
  const taxes = invoice.total_tax_amounts.map(
    (tax) =>
      html`<tr>
        <td colspan="3">
          ${taxNames.get(tax.tax_rate) ?? 'Tax'}${tax.tax_behavior === 'inclusive' ? ' (included)' : ''} on
          ${money(invoice, tax.taxable_amount)}
        </td>
        <td class="num">${money(invoice, tax.amount)}</td>
      </tr>`,
  );
  // The subtotal is before discount; what discounts took off follows it (docs/api.md, "Coupons and discounts").
  const discounted = invoice.total_discount_amounts.reduce((sum, each) => sum + each.amount, 0);
  return html`<section class="card" aria-labelledby="lines-title">
    <h2 id="lines-title">Items</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Description</th>
          <th scope="col" class="num">Qty</th>
          <th scope="col" class="num">Unit price</th>
          <th scope="col" class="num">Amount</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
      <tfoot>
        <tr>
          <td colspan="3">Subtotal</td>
          <td class="num">${money(invoice, invoice.subtotal)}</td>
        </tr>
        ${
          discounted > 0
            ? html`<tr>
                <td colspan="3">Discount</td>
                <td class="num">${money(invoice, -discounted)}</td>
              </tr>`
            : html``
        }
        ${taxes}
        <tr class="total">
          <td colspan="3">Total</td>
          <td class="num">${money(invoice, invoice.total)}</td>
        </tr>
        <tr>
          <td colspan="3">Amount paid</td>
          <td class="num">${money(invoice, invoice.amount_paid)}</td>
        </tr>
        ${
          invoice.amount_refunded > 0
            ? html`<tr>
                <td colspan="3">Refunded</td>
                <td class="num">${money(invoice, invoice.amount_refunded)}</td>
              </tr>`
            : html``
        }
        <tr>
          <td colspan="3"><strong>Amount due</strong></td>
          <td class="num"><strong>${money(invoice, invoice.amount_remaining)}</strong></td>
        </tr>
      </tfoot>
    </table>
    ${pdfPath ? pdfDownload(pdfPath, invoice.status === 'paid') : html``}
  </section>`;
}

/**
 * The invoice's PDF, a GET of this page's own path + `/pdf` (the same document as
 * `GET /invoices/{id}/pdf`), so the page's Content-Security-Policy needs no change; once paid, its
 * receipt beside it (+ `/receipt`).
 */
function pdfDownload(path: string, paid: boolean): Html {
  return html`<p class="pdf-download">
    <a href="${path}" download>Download the invoice (PDF)</a>${
      paid ? html` · <a href="${path.replace(/\/pdf$/, '/receipt')}" download>Download the receipt (PDF)</a>` : html``
    }
  </p>`;
}

/**
 * The invoice's credit notes, each with its PDF (a GET under this page's token, `.../credit-notes/{id}/pdf`,
 * the same document as `GET /credit-notes/{id}/pdf`); nothing when it has none.
 */
function creditNotesSection(path: string, invoice: InvoiceObject, notes: CreditNoteObject[]): Html {
  if (notes.length === 0) return html``;
  return html`<section class="card" aria-labelledby="credit-notes-title">
    <h2 id="credit-notes-title">Credit notes</h2>
    <table>
      <thead>
        <tr>
          <th scope="col">Credit note</th>
          <th scope="col">Issued</th>
          <th scope="col" class="num">Amount</th>
        </tr>
      </thead>
      <tbody>
        ${notes.map(
          (note) =>
            html`<tr>
              <td>
                <a href="${path}/credit-notes/${note.id}/pdf" download>${note.number} (PDF)</a><br />
                <span class="muted">${note.status === 'void' ? 'Void' : creditDestination(note)}</span>
              </td>
              <td>${date(note.created)}</td>
              <td class="num">${money(invoice, note.amount)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </section>`;
}

function outcomeNotice(receipt: ChargeReceipt | null): Html {
  if (!receipt) return html``;
  if (receipt.status === 'succeeded') {
    return html`<div class="notice notice-ok" role="status">
      Payment received: ${receipt.amountFormatted} on ${receipt.brand ?? 'card'} ending ${receipt.last4 ?? ''}. Thank
      you.
    </div>`;
  }
  if (receipt.status === 'failed') {
    return html`<div class="notice notice-error" role="alert">
      ${declineMessage(receipt.failureCode)} Nothing was charged; the invoice is still open. Try another card.
    </div>`;
  }
  if (receipt.failureCode === AUTHENTICATION_REQUIRED)
    return html`<div class="notice" role="status">Your bank asks you to authenticate this payment: see below.</div>`;
  return html`<div class="notice" role="status">Your payment is being processed. Reload this page in a moment.</div>`;
}

/**
 * The card form (the service's fields, or Stripe's element for an account on Stripe); "use for future payments"
 * ticked for a subscription's invoice, or as the customer left it.
 */
function payForm(
  path: string,
  link: LiveLink,
  invoice: InvoiceObject,
  entry: HostedCardEntry,
  errors: FieldErrors,
  values: { name?: string; useForFuture?: boolean },
): Html {
  const useForFuture = values.useForFuture ?? Boolean(invoice.subscription);
  const title = html`<h2 id="pay-title">Pay ${money(invoice, invoice.amount_remaining)} by card</h2>`;
  if (entry.kind === 'none')
    return html`<section class="card" aria-labelledby="pay-title">
      ${title}
      <p class="notice" role="status">${NO_CARD_ENTRY}</p>
    </section>`;
  return html` <section class="card" aria-labelledby="pay-title">
    ${title} ${errors.form ? html`<div class="notice notice-error" role="alert">${errors.form}</div>` : html``}
    <form method="post" action="${path}/pay" novalidate${cardFormAttributes(entry)}>
      <input type="hidden" name="csrf" value="${csrfToken(link.hash, 'pay')}" />
      <input type="hidden" name="form_key" value="${newFormKey()}" />
      ${cardEntryFields('pay', entry, { name: values.name }, errors)}
      <label class="check"
        ><input type="checkbox" name="use_for_future" value="yes" ${useForFuture ? html`checked` : html``} /> Use this
        card for my future payments</label
      >
      <button type="submit">Pay ${money(invoice, invoice.amount_remaining)}</button>
    </form>
  </section>`;
}

/**
 * A payment waiting for the customer's authentication (3-D Secure): the page's button that gives it, or the link to
 * the processor's page where it is given; without either (the processor gave no place yet), a reload asks again.
 */
function authenticationSection(
  path: string,
  link: LiveLink,
  invoice: InvoiceObject,
  place: AuthenticationPlace | null,
): Html {
  const action =
    place?.at === 'service'
      ? html`<form method="post" action="${path}/authenticate">
          <input type="hidden" name="csrf" value="${csrfToken(link.hash, 'authenticate')}" />
          <button type="submit">Authenticate payment</button>
        </form>`
      : place
        ? html`<p><a href="${place.url}">Authenticate payment</a></p>`
        : html`<p class="muted">Reload this page in a moment to authenticate.</p>`;
  return html`<section class="card" aria-labelledby="authenticate-title">
    <h2 id="authenticate-title">Authenticate your payment</h2>
    <p>
      Your bank asks you to confirm the payment of ${money(invoice, invoice.amount_remaining)} before it goes through.
      Nothing is charged until you do.
    </p>
    ${action}
  </section>`;
}

/** A payment the customer's bank is settling (a bank debit, days: docs/decisions.md §40): nothing more to pay now. */
function heldPaymentSection(invoice: InvoiceObject): Html {
  return html`<section class="card" aria-labelledby="processing-title">
    <h2 id="processing-title">Payment processing</h2>
    <p>
      A bank debit of ${money(invoice, invoice.amount_remaining)} is on its way: banks take a few days to settle it.
      Nothing more is due unless it fails, in which case you will be told.
    </p>
  </section>`;
}

async function renderInvoicePage(
  deps: AppDeps,
  res: Response,
  status: number,
  path: string,
  link: LiveLink,
  invoice: InvoiceObject,
  extras: { receipt?: ChargeReceipt | null; errors?: FieldErrors; name?: string; useForFuture?: boolean } = {},
): Promise<void> {
  const payable = invoice.status === 'open' && invoice.amount_remaining > 0;
  // A payment waiting for authentication holds the invoice: the customer finishes it rather than pays again.
  const awaiting = payable ? await hostedAuthentication(deps, link.accountId, invoice.id) : null;
  const account = await readAccountProfile(deps.prisma, link.accountId);
  const rates = await findTaxRates(
    deps.prisma,
    link.accountId,
    invoice.total_tax_amounts.map((tax) => tax.tax_rate),
  ).catch(() => []);
  const taxNames = new Map(
    rates.map((rate) => [
      rate.id,
      rate.display_name.includes('%') ? rate.display_name : `${rate.display_name} ${rate.percentage}%`,
    ]),
  );
  const notes = await listCreditNotes(deps.prisma, link.accountId, { invoice: invoice.id, page: 1, take: 100 });
  // A debit the bank is settling holds the invoice too: no second payment beside it.
  const held = payable && !awaiting ? await paymentHeldByProcessor(deps.prisma, link.accountId, invoice.id) : null;
  const entry = payable && !awaiting && !held ? await hostedCardEntry(deps.prisma, link.accountId) : null;
  sendPage(res, status, {
    stripeCard: entry?.kind === 'stripe',
    title: `Invoice ${invoice.number ?? ''} from ${invoice.account_name ?? ''}`,
    merchant: invoice.account_name,
    brandColor: account?.brandColor,
    body: html`${outcomeNotice(extras.receipt ?? null)}${invoiceSummary(invoice, taxNames, `${path}/pdf`)}${creditNotesSection(
      path,
      invoice,
      notes.data,
    )}${awaiting ? authenticationSection(path, link, invoice, awaiting.place) : held ? heldPaymentSection(invoice) : entry ? payForm(path, link, invoice, entry, extras.errors ?? {}, extras) : html``}${invoice.status === 'void' ? html`<p class="card">This invoice was voided: nothing is due.</p>` : html``}`,
  });
}

/**
 * GET /hosted/invoices/{token}: a finalized invoice's page; POST .../pay pays it by card through the
 * API's own payInvoice (docs/api.md "Hosted pages"). The form's one-time key is the payment's attempt
 * key: a double click completes one attempt, a second tab finds the invoice paid (409 inside, the page
 * shown as paid).
 */
export function hostedInvoiceRouter(deps: AppDeps): express.Router {
  const router = express.Router();
  const route = `${HOSTED_INVOICE_PATH}/:token`;

  router.get(route, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    const invoice = await getInvoice(deps.prisma, link.accountId, link.invoiceId);
    const attempt = typeof req.query.attempt === 'string' ? formKey.safeParse(req.query.attempt) : undefined;
    const receipt = attempt?.success
      ? await attemptReceipt(deps.prisma, link.accountId, link.invoiceId, attemptKeyOf(attempt.data))
      : null;
    await renderInvoicePage(deps, res, 200, req.path, link, invoice, { receipt });
  });

  router.get(`${route}/pdf`, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}/pdf`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    const { pdf, filename } = await invoicePdf(deps.prisma, link.accountId, link.invoiceId);
    res.status(200).type('application/pdf').attachment(filename).send(pdf);
  });

  router.get(`${route}/credit-notes/:creditNote/pdf`, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}/credit-notes/{id}/pdf`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    // Only the credit notes of this page's invoice: another id is unknown here.
    const notes = await listCreditNotes(deps.prisma, link.accountId, { invoice: link.invoiceId, page: 1, take: 100 });
    if (!notes.data.some((note) => note.id === req.params.creditNote))
      return sendNotice(res, 404, 'Credit note not found', 'This invoice has no such credit note.');
    const { pdf, filename } = await creditNotePdf(deps.prisma, link.accountId, String(req.params.creditNote));
    res.status(200).type('application/pdf').attachment(filename).send(pdf);
  });

  router.get(`${route}/receipt`, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}/receipt`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    const invoice = await getInvoice(deps.prisma, link.accountId, link.invoiceId);
    if (invoice.status !== 'paid')
      return sendNotice(res, 409, 'No receipt yet', 'This invoice is not paid: its receipt exists once it is.');
    const { pdf, filename } = await receiptPdf(deps.prisma, link.accountId, link.invoiceId);
    res.status(200).type('application/pdf').attachment(filename).send(pdf);
  });

  router.post(`${route}/authenticate`, formBody, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}/authenticate`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    const pagePath = req.path.replace(/\/authenticate$/, '');
    if (!csrfValid(req, link.hash, 'authenticate'))
      return sendNotice(res, 403, 'This form has expired', 'Reload the invoice page and authenticate again.');
    // Authenticated; nothing waits any more (a second click, paid meanwhile); or the processor's own page is where
    // it is given (`elsewhere`, linked from this page instead): the page shows where it stands.
    await authenticateOnHostedInvoicePage(deps, link.accountId, link.invoiceId);
    res.redirect(303, pagePath);
  });

  router.post(`${route}/pay`, formBody, async (req, res) => {
    res.locals.route = `${HOSTED_INVOICE_PATH}/{token}/pay`;
    const link = await liveLink(deps, req, res);
    if (!link) return;
    const pagePath = req.path.replace(/\/pay$/, '');
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(req, link.hash, 'pay')) {
      return sendNotice(res, 403, 'This form has expired', 'Reload the invoice page and enter your card again.');
    }
    const key = formKey.safeParse(body.form_key);
    const invoice = await getInvoice(deps.prisma, link.accountId, link.invoiceId);
    if (!key.success) {
      return renderInvoicePage(deps, res, 400, pagePath, link, invoice, {
        errors: { form: 'Reload the page and try again.' },
      });
    }
    if (invoice.status !== 'open') return res.redirect(303, pagePath);
    const card = parseCardEntry(await hostedCardEntry(deps.prisma, link.accountId), body, invoice.customer);
    if (!card.ok) {
      const name = typeof body.name === 'string' ? body.name.slice(0, 255) : undefined;
      const useForFuture = body.use_for_future === 'yes';
      return renderInvoicePage(deps, res, 400, pagePath, link, invoice, { errors: card.errors, name, useForFuture });
    }
    try {
      await payFromHostedInvoicePage(deps, {
        accountId: link.accountId,
        invoiceId: link.invoiceId,
        customerId: invoice.customer,
        card: card.card,
        attemptKey: attemptKeyOf(key.data),
        useForFuture: body.use_for_future === 'yes',
      });
    } catch (error) {
      if (error instanceof HostedCardRefusedError) {
        const refusal = cardRefusal(error);
        const useForFuture = body.use_for_future === 'yes';
        return renderInvoicePage(deps, res, refusal.status, pagePath, link, invoice, {
          errors: refusal.errors,
          useForFuture,
        });
      }
      // Paid meanwhile (another tab, the merchant) or voided: the page shows where it stands.
      if (error instanceof InvoiceNotPayableError) return res.redirect(303, pagePath);
      // Test mode: the customer's test clock is advancing; nothing was charged.
      if (error instanceof ApiError && error.code === 'test_clock_advancing')
        return sendNotice(
          res,
          409,
          'Try again in a moment',
          'This invoice is being updated. Nothing was charged: reload the page in a moment and pay then.',
        );
      throw error;
    }
    res.redirect(303, `${pagePath}?attempt=${key.data}`);
  });

  return router;
}
