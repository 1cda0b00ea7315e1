import * as entry from '../../workflows';

/**
 * The workflows' entry exports each workflow as a function that loads its module when a run starts
 * (docs/performance.md, "Twenty-first round"): importing it loads none of them, and each export carries its
 * workflow's name, which a client given the function starts and the worker registers it under.
 */
describe('the workflows entry', () => {
  it('exports every workflow under its own name', () => {
    const exported = Object.entries(entry);
    expect(exported.map(([key]) => key).sort()).toEqual([
      'bankDebitSettlement',
      'deliverWebhook',
      'paymentPlanWorkflow',
      'paymentReconciliation',
      'retentionSweep',
      'sendEmail',
      'subscriptionWorkflow',
      'testClockWorkflow',
    ]);
    for (const [key, workflow] of exported) {
      expect(typeof workflow).toBe('function');
      expect((workflow as { name: string }).name).toBe(key);
    }
  });
});
