import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { paths } from '../../src/config';
import { migrate } from '../../src/db/migrator';
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres';
import { startTemporalDevServer } from '../../src/runtime/temporal-dev-server';
import { writeWorkflowBundle } from '../../src/temporal/bundle';
import { CODEC_PATH, codecRouter } from '../../src/temporal/codec-server';
import express from 'express';
import { freePort } from './ports';

/**
 * One run of the suite gets its own PostgreSQL cluster (in a temp folder, migrated from scratch),
 * its own Temporal dev server and one workflow bundle, so parallel runs never share state.
 * Test files isolate themselves further by creating their own accounts.
 */
export default async function globalSetup(): Promise<void> {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'billing-test-'));
  fs.chmodSync(runDir, 0o777);
  const [pgPort, temporalPort, uiPort, codecPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  // The Web UI decodes the (encrypted) payloads through the service's codec endpoint, as operators' does.
  const codecApp = express();
  codecApp.use(CODEC_PATH, codecRouter({ origins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`] }));
  const codecServer = http.createServer(codecApp);
  await new Promise<void>((resolve) => codecServer.listen(codecPort, '127.0.0.1', resolve));
  const codecEndpoint = `http://127.0.0.1:${codecPort}${CODEC_PATH}`;
  const [database, temporal] = await Promise.all([
    startEmbeddedPostgres({ dataDir: path.join(runDir, 'postgres'), port: pgPort, database: 'billing_test' }),
    startTemporalDevServer({ dataDir: runDir, port: temporalPort, uiPort, namespace: 'default', codecEndpoint }),
  ]);
  await migrate(database.url, paths.migrations);
  const bundlePath = path.join(runDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);

  process.env.DATABASE_URL = database.url;
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_UI_URL = temporal.uiUrl;
  process.env.TEMPORAL_CODEC_URL = codecEndpoint;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.TEST_RUN_DIR = runDir;
  process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
  // The limiter stays on, sized so tests that loop fast on one key are not throttled; test/api/security.test.ts
  // checks the production defaults and small limits through createApp's rateLimit.
  process.env.RATE_LIMIT_PER_SECOND = process.env.RATE_LIMIT_PER_SECOND ?? '100000';
  // Likewise for failed authentications: the fuzzer and the auth tests send many bad keys from one address.
  process.env.AUTH_FAILURES_PER_MINUTE = process.env.AUTH_FAILURES_PER_MINUTE ?? '1000000';
  // No test ever reaches the real Stripe: a request a test does not aim at stripe-mock or localstripe finds
  // nothing listening (the fuzzer's valid PUT /settings/gateway answers its documented 502 at once).
  process.env.STRIPE_API_BASE = 'http://127.0.0.1:9';
  (globalThis as Record<string, unknown>).__billingTestServices = { database, temporal, runDir, codecServer };
}
