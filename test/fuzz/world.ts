import { createProduct, monthlyPrice } from '../support/catalog';
import { apiClient, createTestAccount, startTestApp, startTestWorker, type TestApp } from '../support/harness';
import { createTaxRate, customerWithCard, simpleInvoice } from '../support/payments';
import { createTerminal, quietRuntime } from '../support/payment-plans';

/**
 * The app with a worker of its own, an account with payment plans on, and one resource of each kind,
 * so that generated requests reach real resources as well as missing ones.
 */
export async function startFuzzWorld(taskQueue = `fuzz-${process.pid}-${Date.now()}`) {
  quietRuntime();
  const app: TestApp = await startTestApp({ taskQueue });
  const worker = await startTestWorker(app.prisma, taskQueue);
  const { apiKey } = await createTestAccount(app.prisma, { name: 'Fuzz', paymentPlans: true });
  const api = apiClient(app.baseUrl, apiKey);
  const { customer, method } = await customerWithCard(api);
  const product = await createProduct(api, monthlyPrice);
  const seedIds: [string, unknown][] = [
    ['/customers', customer],
    ['/payment-methods', method],
    ['/products', product],
    ['/prices', { id: product.default_price }],
    ['/taxRates', await createTaxRate(api, 8.25, false)],
    ['/invoices', await simpleInvoice(api, customer.id)],
    ['/terminals', await createTerminal(api)],
    ['/webhook', (await api.post('/webhook/destination', { url: 'https://example.com/fuzz' })).body],
  ];
  return {
    app,
    apiKey,
    seedIds,
    async close() {
      await worker.stop();
      await app.close();
    },
  };
}
