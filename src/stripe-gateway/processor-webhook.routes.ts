import express, { type NextFunction, type Request, type Response } from 'express';
import type { Db } from '../db/prisma';
import { MAX_BODY_BYTES } from '../http/api';
import type { ProcessorReport } from '../payments';
import type { ProcessorSaleReport } from '../terminals';
import { receiveStripeWebhook } from './processor-events.service';

/**
 * Stripe's webhook endpoint of each connected account, `<PROCESSOR_WEBHOOKS_PATH>/stripe/{webhook_key}`
 * (the `webhook_url` of GET /settings/gateway). Outside the API's routes: no API key (the signature
 * authenticates), and the body is kept as the bytes Stripe signed, never parsed first.
 */
export function stripeWebhookRouter(
  prisma: Db,
  /** Records what an event reports (the charge protocol's: the app wires it); answered 200 once it is recorded. */
  settle: (report: ProcessorReport) => Promise<unknown>,
  /** Records a terminal sale's outcome (the payment plan's: the app wires it). */
  recordSale: (report: ProcessorSaleReport) => Promise<unknown>,
): express.Router {
  const router = express.Router();
  router.post(
    '/:webhookKey',
    express.raw({ type: () => true, limit: MAX_BODY_BYTES }),
    (req: Request<{ webhookKey: string }>, res: Response, next: NextFunction) => {
      res.locals.route = `${req.baseUrl}/{webhook_key}`;
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      receiveStripeWebhook(prisma, req.params.webhookKey, body, req.header('stripe-signature'))
        .then(async (outcome) => {
          if (outcome.report) await settle(outcome.report);
          if (outcome.saleReport) await recordSale(outcome.saleReport);
          res.status(200).json({ received: true, status: outcome.status });
        })
        .catch(next);
    },
  );
  return router;
}
