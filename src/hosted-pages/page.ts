import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { derivedKeys } from '../lib/encryption';
import { hashPageToken, PAGE_TOKEN_PATTERN } from '../lib/page-tokens';
import { PAGE_CSS } from './page-style';
import { config } from '../config';
import { STRIPE_CARD_SCRIPT, STRIPE_CARD_SCRIPT_PATH } from './stripe-card-script';

/**
 * Pages customers open from a link (docs/decisions.md §29): HTML written by the server, no script (but
 * Stripe's card element where the account is on Stripe: stripeCardCsp below), one stylesheet from this
 * service. The policy below is stricter than helmet's default for the API: nothing may load from
 * elsewhere, no script may run, forms post only here.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Where the pages' stylesheet is served (cached for good: its name changes with it). */
export const PAGE_CSS_PATH = `/hosted/assets/page-${crypto.createHash('sha256').update(PAGE_CSS).digest('hex').slice(0, 12)}.css`;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML: every value a page shows goes through here (or html`` below). */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

/** Markup already escaped, kept as it is when nested in html``. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** A template tag that escapes every interpolated value unless it is Html (or an array of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, index) => {
    const parts = Array.isArray(value) ? value : [value];
    out += parts.map((part) => (part instanceof Html ? part.text : escapeHtml(part))).join('');
    out += strings[index + 1]!;
  });
  return new Html(out);
}

export interface PageOptions {
  title: string;
  /** The merchant the page is for, shown in its header. */
  merchant?: string | null;
  body: Html;
  /** Origins a form of the page may lead to besides this one (a checkout's success_url: its redirect). */
  formActions?: string[];
  /** The account's colour (`brand_color`, #rrggbb): the header's rule and the buttons (docs/decisions.md §30). */
  brandColor?: string | null;
  /** The page collects a card with Stripe's element: Stripe.js and the card script load, and the policy allows them. */
  stripeCard?: boolean;
}

/**
 * The policy of a page with Stripe's card element, as Stripe's security guide lists it: Stripe.js (from
 * STRIPE_JS_URL's origin, Stripe's unless set) and the card script from here, Stripe's frames (the element
 * lives in one; 3-D Secure in hooks.stripe.com) and its API for the element's calls; nothing else changes.
 */
function stripeCardCsp(): string {
  const stripeJs = 'https://js.stripe.com';
  // Another STRIPE_JS_URL (the browser tests' stand-in) answers the element's calls itself.
  const elsewhere = config.stripeJsUrl.origin === stripeJs ? '' : ` ${config.stripeJsUrl.origin}`;
  const scripts = `${stripeJs} https://*.js.stripe.com${elsewhere}`;
  return [
    PAGE_CSP,
    `script-src 'self' ${scripts}`,
    `frame-src ${scripts} https://hooks.stripe.com`,
    `connect-src https://api.stripe.com${elsewhere}`,
  ].join('; ');
}

const BRAND_COLOR = /^#([0-9a-f]{6})$/;
const BRAND_CSS_PATH = /^\/hosted\/assets\/brand-([0-9a-f]{6})\.css$/;

/**
 * The stylesheet of a brand colour: the colour and, for text on it, white or near-black, whichever
 * contrasts more (WCAG's relative luminance). A stylesheet of this service, as the policy allows (no
 * inline style); the colour is in its name, so it is cached for good.
 */
export function brandCss(hex: string): string {
  const channel = (index: number) => {
    const value = parseInt(hex.slice(index, index + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
  const onWhite = 1.05 / (luminance + 0.05);
  const onDark = (luminance + 0.05) / 0.0625;
  return `:root{--brand:#${hex};--brand-text:${onWhite >= onDark ? '#ffffff' : '#1a1d23'}}\n`;
}

export function renderPage({ title, merchant, body, brandColor, stripeCard }: PageOptions): string {
  const brand = brandColor ? BRAND_COLOR.exec(brandColor)?.[1] : undefined;
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <link rel="stylesheet" href="${PAGE_CSS_PATH}" />
        ${brand ? html`<link rel="stylesheet" href="/hosted/assets/brand-${brand}.css" />` : ''}
        ${
          stripeCard
            ? html`<script src="${config.stripeJsUrl.href}"></script>
                <script src="${STRIPE_CARD_SCRIPT_PATH}" defer></script>`
            : ''
        }
      </head>
      <body>
        <header class="top">${merchant ?? ''}</header>
        <main>${body}</main>
        <footer class="foot">
          ${
            stripeCard
              ? 'Card details go straight to Stripe, the payment processor: they never reach this site.'
              : 'Payments are processed securely. Card numbers are never stored by this page.'
          }
        </footer>
      </body>
    </html>`.text
  }`;
}

/**
 * Sends a page with the pages' own headers: the strict policy above, never cached (a page shows a
 * customer's data and its form's one-time values), and no referrer (the token is in the address).
 */
export function sendPage(res: Response, status: number, options: PageOptions): void {
  const extra = (options.formActions ?? []).filter((origin) => /^https?:\/\/[A-Za-z0-9.:[\]-]+$/.test(origin));
  const policy = options.stripeCard ? stripeCardCsp() : PAGE_CSP;
  res.setHeader(
    'Content-Security-Policy',
    extra.length > 0 ? policy.replace("form-action 'self'", `form-action 'self' ${extra.join(' ')}`) : policy,
  );
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.status(status).type('html').send(renderPage(options));
}

/** A page that says in plain words why there is nothing to show (unknown or expired link, too many tries). */
export function sendNotice(res: Response, status: number, title: string, message: string): void {
  sendPage(res, status, {
    title,
    body: html`<section class="card">
      <h1>${title}</h1>
      <p>${message}</p>
    </section>`,
  });
}

/**
 * The live record a request's `:token` names, found by the token's hash; otherwise the page that says
 * the link is unknown (404, also for a malformed token: no lookup) or expired (410), and undefined.
 */
export async function liveToken<T extends { accountId: string; expiresAt: Date }>(
  req: Request,
  res: Response,
  find: (token: string) => Promise<T | null | undefined>,
): Promise<{ record: T; hash: string; token: string } | undefined> {
  const token = String(req.params.token ?? '');
  const record = PAGE_TOKEN_PATTERN.test(token) ? await find(token) : undefined;
  if (!record) {
    sendUnknownLink(res);
    return undefined;
  }
  if (record.expiresAt.getTime() <= Date.now()) {
    sendExpiredLink(res);
    return undefined;
  }
  res.locals.accountId = record.accountId;
  return { record, hash: hashPageToken(token), token };
}

export function sendUnknownLink(res: Response): void {
  sendNotice(
    res,
    404,
    'This link is not valid',
    'The page you asked for does not exist. Check that the whole link was copied, or ask the sender for a new one.',
  );
}

export function sendExpiredLink(res: Response): void {
  sendNotice(
    res,
    410,
    'This link has expired',
    'For your security this link no longer works. Ask the sender for a new one.',
  );
}

/**
 * The synchronizer token of a page's forms: an HMAC of the page's token hash and the form's purpose
 * under a key derived from SECRETS_ENCRYPTION_KEY, so it needs no storage. A page on another site
 * cannot read it; the Origin check below refuses a cross-site post as well.
 */
export function csrfToken(linkKey: string, purpose: string): string {
  return crypto
    .createHmac('sha256', derivedKeys('hosted-page-csrf').current.key)
    .update(`${linkKey}\n${purpose}`)
    .digest('base64url');
}

export function csrfValid(req: Request, linkKey: string, purpose: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.headers.host) return false;
  }
  const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
  return derivedKeys('hosted-page-csrf')
    .all()
    .some((key) => {
      const expected = Buffer.from(
        crypto.createHmac('sha256', key.key).update(`${linkKey}\n${purpose}`).digest('base64url'),
      );
      const given = Buffer.from(sent);
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    });
}

export interface PageLimits {
  /** Form posts per link per minute. */
  postsPerMinute: number;
  /** Page requests (any method) per client address per minute. */
  requestsPerMinute: number;
}

export const DEFAULT_PAGE_LIMITS: PageLimits = { postsPerMinute: 10, requestsPerMinute: 120 };

/**
 * Rate limits of the pages (docs/api.md "Hosted pages"): per client address for every request (link
 * guessing), and per link for form posts (card testing). In process memory, as the API's limits
 * (docs/decisions.md §13). Over the limit: a 429 page saying when to try again.
 */
export function pageRateLimit(limits: PageLimits = DEFAULT_PAGE_LIMITS) {
  const perAddress = new RateLimiterMemory({
    keyPrefix: 'page-address',
    points: limits.requestsPerMinute,
    duration: 60,
  });
  const perLink = new RateLimiterMemory({ keyPrefix: 'page-posts', points: limits.postsPerMinute, duration: 60 });
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      await perAddress.consume(req.ip ?? 'unknown');
      if (req.method === 'POST') await perLink.consume(`${req.path.split('/').slice(0, 4).join('/')}`);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) return next(error);
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      res.setHeader('Retry-After', String(seconds));
      return sendNotice(res, 429, 'Too many attempts', `Please wait ${seconds} seconds, then try again.`);
    }
    next();
  };
}

/** The stylesheet's route and the form body parser every page router shares. */
export function pageAssets(): express.Router {
  const router = express.Router();
  router.get(PAGE_CSS_PATH, (_req, res) => {
    res.locals.route = '/hosted/assets/{file}';
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('css').send(PAGE_CSS);
  });
  router.get(STRIPE_CARD_SCRIPT_PATH, (_req, res) => {
    res.locals.route = '/hosted/assets/{file}';
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('js').send(STRIPE_CARD_SCRIPT);
  });
  router.get(BRAND_CSS_PATH, (req, res) => {
    res.locals.route = '/hosted/assets/{file}';
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.type('css').send(brandCss(BRAND_CSS_PATH.exec(req.path)![1]!));
  });
  return router;
}

/** Forms post urlencoded bodies; small ones (a card form is well under 2 KB). */
export const formBody = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 50 });

/** Errors of a page become a page, never the API's JSON: a body too large or malformed is a 400 page. */
export function pageErrors(log: { error(obj: object, msg: string): void }) {
  return (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: number }).status;
    if (status && status >= 400 && status < 500) {
      return sendNotice(res, status, 'The form could not be read', 'Go back, reload the page and try again.');
    }
    log.error({ err: error, requestId: res.locals.requestId, route: res.locals.route }, 'hosted page error');
    return sendNotice(
      res,
      500,
      'Something went wrong',
      'Reload the page to see where things stand: paying again never takes a payment twice.',
    );
  };
}
