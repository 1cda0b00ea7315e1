import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { couponIdParams, couponSchema, createCouponBody, listCouponsQuery } from './coupon.schemas';
import { createCoupon, deleteCoupon, getCoupon, listCoupons } from './coupon.service';

export function registerCouponRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Coupons';

  api.route({
    method: 'post',
    path: '/coupons',
    tag,
    summary: 'Create a coupon: a percentage or an amount off, once, for some months or forever',
    description:
      'Give `percent_off` (1 to 100, at most 2 decimals) or `amount_off` with `currency`; `duration_in_months` with `repeating` ' +
      'only. Redeemed with `coupon` on a customer or a subscription (docs/api.md, "Coupons and discounts"). Writes coupon.created.',
    body: createCouponBody,
    status: 201,
    response: couponSchema,
    handler: ({ principal, body }) => createCoupon(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/coupons',
    tag,
    summary: 'List the coupons not deleted, newest first',
    query: listCouponsQuery,
    response: pageSchema(couponSchema),
    handler: ({ principal, query }) => listCoupons(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/coupons/{id}',
    tag,
    summary: 'Retrieve a coupon',
    params: couponIdParams,
    response: couponSchema,
    errors: [404],
    handler: ({ principal, params }) => getCoupon(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'delete',
    path: '/coupons/{id}',
    tag,
    summary: 'Delete a coupon: no new redemptions; discounts already made keep running',
    description: 'Writes coupon.deleted. A deleted coupon answers 404 from then on, to reads and to redemptions.',
    params: couponIdParams,
    response: z.object({ id: z.string(), object: z.literal('coupon'), deleted: z.literal(true) }),
    errors: [404],
    handler: ({ principal, params }) => deleteCoupon(prisma, principal.accountId, params.id),
  });
}
