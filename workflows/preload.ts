// Evaluated once per worker before any workflow (src/temporal/worker.ts, PRELOADED_WORKFLOW_MODULES),
// and shared by every workflow the worker runs: zod's modules, as the workflow modules import them
// (the ES module build; a `require('zod')` would preload the CommonJS copy, which no workflow uses).
// Nothing here may keep per-workflow state.
import { z } from 'zod';

// The workflows' own modules that are pure: constants, types and functions of their arguments, no
// @temporalio/workflow (whose API reads the running workflow) and no state kept between calls. Every
// workflow the worker creates evaluated them again, though each needs at most a few: a webhook delivery
// evaluated the subscription's state machine and summaries too, about a third of the workflow
// modules' evaluation per workflow in a CPU profile of the webhooks bench (docs/performance.md,
// "Webhook deliveries, fifth pass"). The worker freezes them with the rest of what preloading made.
import '../src/lib/durations';
import '../src/lib/event-origin';
import '../src/payments/charge-failure';
import '../src/retention/retention-targets';
import '../src/subscriptions/billing-dates';
import '../src/subscriptions/proration';
import '../src/subscriptions/subscription-machine';
import '../src/subscriptions/subscription-rejection';
import '../src/temporal/search-attributes';
import './activity-options';
import './lazy-schema';
import './payment-plan-contract';
import './payment-plan-patches';
import './payment-plan-schedule';
import './subscription-patches';
import './summaries';
import './test-clock-contract';
import './webhook-delivery-patches';
import './webhook-schedule';

export * from 'zod';

// The worker freezes what preloading made. zod writes its default locale and memoizer into its global
// config when the first schema (the first container) is built: build one here, so that happens now.
z.object({ preloaded: z.array(z.string()) }).safeParse({ preloaded: [''] });
