import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import { gatewaySettingsBody, gatewaySettingsSchema } from './gateway-settings.schemas';
import { getGatewaySettings, putGatewaySettings } from './gateway-settings.service';

export function registerGatewaySettingsRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'Payment processors';

  api.route({
    method: 'get',
    path: '/settings/gateway',
    tag,
    roles: ADMIN_ROLES,
    summary: "The account's card processor, and the last characters of its secrets (developer or superadmin)",
    description:
      'processor is `simulated` until a processor is connected. The secrets are never answered, only their last 4 ' +
      'characters; webhook_url is the endpoint to give the processor for its events. docs/api.md, "Payment processors".',
    response: gatewaySettingsSchema,
    handler: ({ principal }) => getGatewaySettings(prisma, principal.accountId),
  });

  api.route({
    method: 'put',
    path: '/settings/gateway',
    tag,
    roles: ADMIN_ROLES,
    summary: 'Connect the account to Stripe with its secret key and webhook signing secret (developer or superadmin)',
    description:
      'The key is checked with Stripe first: a key Stripe refuses is a 400 naming secret_key, and a Stripe that does ' +
      'not answer a 502 `gateway_unavailable` (nothing saved; retry). Both secrets are stored encrypted (AES-256-GCM) ' +
      'and never shown again. A live key (sk_live_) makes livemode true. docs/api.md, "Payment processors".',
    body: gatewaySettingsBody,
    response: gatewaySettingsSchema,
    errors: [502],
    handler: ({ principal, body }) => putGatewaySettings(prisma, principal.accountId, body),
  });
}
