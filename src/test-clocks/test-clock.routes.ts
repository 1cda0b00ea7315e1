import { config } from '../config';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { pageSchema } from '../http/pagination';
import { testModeEnabled } from '../lib/test-mode';
import {
  advanceTestClockBody,
  createTestClockBody,
  deletedTestClockSchema,
  listTestClocksQuery,
  testClockIdParams,
  testClockSchema,
} from './test-clock.schemas';
import { advanceTestClock, createTestClock, deleteTestClock, getTestClock, listTestClocks } from './test-clock.service';

/** Test clocks (test mode only: without it these paths do not exist, 404). README "Test clocks". */
export function registerTestClockRoutes(api: Api, deps: AppDeps): void {
  if (!testModeEnabled()) return;
  const { prisma } = deps;
  const clockDeps = { prisma, temporal: deps.temporal, taskQueue: deps.taskQueue ?? config.taskQueue };
  const tag = 'Test helpers';

  api.route({
    method: 'post',
    path: '/test-helpers/test-clocks',
    tag,
    summary: 'Test mode: create a test clock',
    description:
      "Customers created with `test_clock` run their subscriptions and payment plans on the clock's frozen_time instead of the wall clock.",
    body: createTestClockBody,
    status: 201,
    response: testClockSchema,
    handler: ({ principal, body }) => createTestClock(prisma, principal.accountId, body),
  });

  api.route({
    method: 'get',
    path: '/test-helpers/test-clocks',
    tag,
    summary: 'Test mode: list the test clocks of the account, newest first',
    query: listTestClocksQuery,
    response: pageSchema(testClockSchema),
    handler: ({ principal, query }) => listTestClocks(prisma, principal.accountId, query),
  });

  api.route({
    method: 'get',
    path: '/test-helpers/test-clocks/{id}',
    tag,
    summary: 'Test mode: retrieve a test clock (poll it after an advance until `status` is ready)',
    params: testClockIdParams,
    response: testClockSchema,
    errors: [404],
    handler: ({ principal, params }) => getTestClock(prisma, principal.accountId, params.id),
  });

  api.route({
    method: 'post',
    path: '/test-helpers/test-clocks/{id}/advance',
    tag,
    summary: 'Test mode: move a test clock forward',
    description:
      'Answers 202 with status `advancing`; the clock is `ready` once every subscription and payment plan on it has done, in ' +
      'order, what falls due up to frozen_time (invoices, charges, dunning retries, installments, status changes, events). ' +
      'Forward only, at most two of the longest billing interval on the clock at once (two years without subscriptions or ' +
      "plans): 400 `frozen_time` otherwise. While it advances, changes to its customers' subscriptions and plans answer 409 " +
      '`test_clock_advancing`, and so does another advance.',
    params: testClockIdParams,
    body: advanceTestClockBody,
    status: 202,
    response: testClockSchema,
    errors: [404, 409],
    handler: ({ principal, params, body }) =>
      advanceTestClock(clockDeps, principal.accountId, params.id, body.frozen_time),
  });

  api.route({
    method: 'delete',
    path: '/test-helpers/test-clocks/{id}',
    tag,
    summary: 'Test mode: delete a test clock',
    description:
      "Stops an advance in progress and cancels the subscriptions and payment plans of the clock's customers; the clock then answers 404.",
    params: testClockIdParams,
    response: deletedTestClockSchema,
    errors: [404],
    handler: ({ principal, params }) => deleteTestClock(clockDeps, principal.accountId, params.id),
  });
}
