import createClient, { type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

export type { components, operations, paths };
/** A resource as the API answers it, by its schema name: `Schema<'Customer'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * A typed client of this API for integrators and tests: openapi-fetch over the types generated from
 * /openapi.json (src/client/schema.d.ts, `npm run client:generate`). Paths, parameters, bodies and
 * answers are checked by the compiler, so a client built against an older document stops compiling.
 *
 *   const billing = createBillingClient('http://localhost:3000', process.env.CC_API_KEY!);
 *   const { data, error } = await billing.POST('/customers', { body: { name: 'Acme' } });
 */
export function createBillingClient(
  baseUrl: string,
  apiKey: string,
  options: { fetch?: typeof fetch; middleware?: Middleware[] } = {},
) {
  const client = createClient<paths>({
    baseUrl,
    headers: { 'cc-api-key': apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  for (const middleware of options.middleware ?? []) client.use(middleware);
  return client;
}

export type BillingClient = ReturnType<typeof createBillingClient>;
