// The payment processors the service knows, one line each (docs/architecture.md, "Payment processors"):
// an account is served by the adapter registered for its `payment_processor`, or for its gateway kind
// when it has connected none. Loaded once by the API and the worker before they choose a gateway.
import { registerGateway } from './payments';
import { simulatedGateway } from './payments';
import { stripeGateway } from './stripe-gateway';

registerGateway('card_processor', simulatedGateway);
registerGateway('bank_processor', simulatedGateway);
registerGateway('stripe', stripeGateway);
