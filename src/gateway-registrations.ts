// The payment processors the service knows, one line each (docs/architecture.md, "Payment processors"):
// an account is served by the adapter registered for its `payment_processor`, or for its gateway kind
// when it has connected none.
import type { Db } from './db/prisma';
import { createGateways, registerGateway, type Gateways, type GatewayTemporal } from './payments';
import { simulatedGateway } from './simulated-gateway';
import { stripeGateway, stripeTerminalProcessor } from './stripe-gateway';
import { registerTerminalProcessor, simulatedTerminalProcessor } from './terminals';

registerGateway('card_processor', simulatedGateway);
registerGateway('bank_processor', simulatedGateway);
registerGateway('stripe', stripeGateway);

// Card terminals are chosen the same way: the simulated terminal unless the account connected Stripe.
registerTerminalProcessor('card_processor', simulatedTerminalProcessor);
registerTerminalProcessor('bank_processor', simulatedTerminalProcessor);
registerTerminalProcessor('stripe', stripeTerminalProcessor);

/**
 * The registered adapters, each account served by its own: what the API, the worker and the CLI are given. The
 * API gives its Temporal (a worker's activities have their own: src/simulated-gateway/bank-debit-timer.ts).
 */
export function registeredGateways(prisma: Db, temporal?: GatewayTemporal): Gateways {
  return createGateways(prisma, temporal);
}
