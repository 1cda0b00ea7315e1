import express from 'express';
import type { AppDeps } from '../http/app-deps';
import type { Logger } from '../http/logger';
import { tellSettledAfterAnswer } from '../invoices';
import { noticeInvoicesSettled } from '../subscriptions';
import { hostedInvoiceRouter } from './hosted-invoice.routes';
import { portalRouter } from './portal.routes';
import { checkoutRouter } from './checkout.routes';
import { pageAssets, pageErrors, pageRateLimit, sendUnknownLink } from './page';

/**
 * Every customer-facing page under /hosted (docs/decisions.md §29): one rate limit, the stylesheet,
 * each page's router, and a page (never the API's JSON) for an unknown path or an error.
 */
export function hostedPagesRouter(deps: AppDeps, log: Logger): express.Router {
  const router = express.Router();
  const pages = express.Router();
  pages.use(pageRateLimit(deps.pageLimits));
  pages.use(pageAssets());
  // An open invoice a page paid: its subscription's workflow is told once the page answered (docs/decisions.md §7).
  const tell = noticeInvoicesSettled(deps.temporal);
  pages.use((_req, res, next) => tellSettledAfterAnswer(tell, (done) => res.once('close', done), next));
  pages.use(hostedInvoiceRouter(deps));
  pages.use(portalRouter(deps));
  pages.use(checkoutRouter(deps));
  pages.use((_req, res) => {
    res.locals.route ??= '/hosted/{page}';
    sendUnknownLink(res);
  });
  pages.use(pageErrors(log));
  router.use((req, res, next) => (req.path.startsWith('/hosted/') ? pages(req, res, next) : next()));
  return router;
}
