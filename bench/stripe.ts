// The charge path through the Stripe adapter (src/stripe-gateway/) against stripe-mock, beside the same
// PaymentIntent calls made directly with the `stripe` client: what the adapter adds (reading and decrypting
// the account's connection, finding the customer's Stripe customer, mapping the answer) per charge. Both
// run the same number of charges on the same lanes, alternating in slices. Skipped, saying so, without
// stripe-mock (`npm run bootstrap`). Goal: the adapter at least 0.8x the direct calls' rate.
import Stripe from 'stripe';
import '../src/gateway-registrations';
import { createAccount } from '../src/accounts/account.service';
import { createGateways } from '../src/payments/gateways';
import { putGatewaySettings } from '../src/gateway-settings/gateway-settings.service';
import { startStripeMock, stripeToolMissing } from '../test/support/stripe-tools';
import { ratio, roundTo, runLanes, type BenchContext, type Figures } from './support';

const CHARGES = Number(process.env.BENCH_STRIPE_CHARGES ?? 2000);
const LANES = 10;
const SLICES = 4;
const SECRET_KEY = 'sk_test_BenchAdapter0000';

export async function benchStripe(ctx: BenchContext): Promise<Figures> {
  const missing = stripeToolMissing('stripe-mock');
  if (missing) {
    console.log(`stripe: skipped (${missing})`);
    return {};
  }
  const stripeMock = await startStripeMock();
  const apiBaseBefore = process.env.STRIPE_API_BASE;
  process.env.STRIPE_API_BASE = stripeMock.apiBase;
  try {
    const account = await createAccount(ctx.prisma, { name: 'Bench Stripe', role: 'developer' });
    const accountId = account.account_id;
    await putGatewaySettings(ctx.prisma, accountId, {
      processor: 'stripe',
      secret_key: SECRET_KEY,
      webhook_secret: 'whsec_BenchAdapter',
    });
    const gateways = createGateways(ctx.prisma);
    const direct = new Stripe(SECRET_KEY, {
      host: '127.0.0.1',
      port: stripeMock.port,
      protocol: 'http',
      maxNetworkRetries: 0,
      telemetry: false,
    });
    const params = (index: number, run: string) => ({
      amount: 2500,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      off_session: true,
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' as const },
      metadata: { invoice_id: `in_${index}`, billing_idempotency_key: `${run}:${index}` },
    });
    const held = await gateways.gatewayFor(accountId);
    // As the charge protocol does, the account's gateway asked for each charge (`perCharge`), or one held.
    const throughAdapter =
      (run: string, perCharge = true) =>
      async (index: number) => {
        const gateway = perCharge ? await gateways.gatewayFor(accountId) : held;
        const result = await gateway.charge({
          amount: 2500,
          currency: 'usd',
          paymentMethod: { id: 'pm_card_visa', accountId, type: 'card', customerId: null },
          idempotencyKey: `${run}:${index}`,
          metadata: { invoice_id: `in_${index}` },
        });
        if (result.status === 'unknown') throw new Error(`adapter charge ${index}: ${result.reason}`);
      };
    const directly = (run: string) => async (index: number) => {
      await direct.paymentIntents.create(params(index, run), { idempotencyKey: `${run}:${index}` });
    };
    // Warm both paths (connections, the client cache, prepared statements).
    await runLanes(100, LANES, throughAdapter('warm-a'));
    await runLanes(100, LANES, directly('warm-d'));
    let adapterMs = 0;
    let heldMs = 0;
    let directMs = 0;
    const perSlice = Math.ceil(CHARGES / SLICES);
    const msOf = (result: { perSecond: number }) => (perSlice / result.perSecond) * 1000;
    for (let slice = 0; slice < SLICES; slice += 1) {
      adapterMs += msOf(await runLanes(perSlice, LANES, throughAdapter(`a${slice}`)));
      heldMs += msOf(await runLanes(perSlice, LANES, throughAdapter(`h${slice}`, false)));
      directMs += msOf(await runLanes(perSlice, LANES, directly(`d${slice}`)));
    }
    const rate = (ms: number) => (perSlice * SLICES) / (ms / 1000);
    const [adapterRate, heldRate, directRate] = [rate(adapterMs), rate(heldMs), rate(directMs)];
    console.log(
      `stripe: ${perSlice * SLICES} charges each on ${LANES} lanes against stripe-mock: direct stripe client ` +
        `${roundTo(directRate, 0)}/s; adapter, gatewayFor at each charge ${roundTo(adapterRate, 0)}/s ` +
        `(${ratio(adapterRate, directRate)} of direct; goal 0.8x); adapter held ${roundTo(heldRate, 0)}/s (${ratio(heldRate, directRate)})`,
    );
    return {
      stripe_adapter_charges_per_s: roundTo(adapterRate, 0),
      stripe_adapter_held_charges_per_s: roundTo(heldRate, 0),
      stripe_direct_charges_per_s: roundTo(directRate, 0),
      stripe_adapter_ratio: roundTo(adapterRate / directRate, 2),
    };
  } finally {
    process.env.STRIPE_API_BASE = apiBaseBefore;
    await stripeMock.stop();
  }
}
