// Every workflow the `billing` task queue runs. Workflow code is deterministic: no I/O, no Date.now(),
// no Math.random(); time and randomness come from @temporalio/workflow.
export { deliverWebhook } from './webhook-delivery';
export { paymentPlanWorkflow } from './payment-plan';
export { subscriptionWorkflow } from './subscription';
export { testClockWorkflow } from './test-clock';
export { sendEmail } from './email';
export { retentionSweep } from './retention-sweep';
export { paymentReconciliation } from './payment-reconciliation';
export { bankDebitSettlement } from './bank-debit-settlement';
