// Every workflow the `billing` task queue runs. Workflow code is deterministic: no I/O, no Date.now(),
// no Math.random(); time and randomness come from @temporalio/workflow.
//
// Each is exported as a function that loads its own module when one of its runs starts. The worker
// instantiates every module this entry imports once for each workflow it creates or replays (reusable
// V8 context: workflows/lazy-schema.ts), so an entry importing them all made each subscription's first
// task instantiate the payment plan's, the webhook delivery's and every other workflow's modules too
// (docs/performance.md, "Twenty-first round"). Nothing here is a workflow command: histories replay the same.

/**
 * The workflow `name` of the module `load` gives, its module instantiated at the run's start only. The function
 * carries the workflow's name: a client given it starts the workflow type of that name.
 */
function loadedAtStart<M, K extends keyof M & string>(load: () => M, name: K): M[K] {
  const run = (...args: unknown[]) => (load()[name] as (...args: unknown[]) => unknown)(...args);
  return Object.defineProperty(run, 'name', { value: name }) as M[K];
}

/* eslint-disable @typescript-eslint/no-require-imports -- a require in the call keeps the module out until a run needs it */
export const deliverWebhook = loadedAtStart(
  () => require('./webhook-delivery') as typeof import('./webhook-delivery'),
  'deliverWebhook',
);
export const paymentPlanWorkflow = loadedAtStart(
  () => require('./payment-plan') as typeof import('./payment-plan'),
  'paymentPlanWorkflow',
);
export const subscriptionWorkflow = loadedAtStart(
  () => require('./subscription') as typeof import('./subscription'),
  'subscriptionWorkflow',
);
export const testClockWorkflow = loadedAtStart(
  () => require('./test-clock') as typeof import('./test-clock'),
  'testClockWorkflow',
);
export const sendEmail = loadedAtStart(() => require('./email') as typeof import('./email'), 'sendEmail');
export const retentionSweep = loadedAtStart(
  () => require('./retention-sweep') as typeof import('./retention-sweep'),
  'retentionSweep',
);
export const paymentReconciliation = loadedAtStart(
  () => require('./payment-reconciliation') as typeof import('./payment-reconciliation'),
  'paymentReconciliation',
);
export const bankDebitSettlement = loadedAtStart(
  () => require('./bank-debit-settlement') as typeof import('./bank-debit-settlement'),
  'bankDebitSettlement',
);
/* eslint-enable @typescript-eslint/no-require-imports */
