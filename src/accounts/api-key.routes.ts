import { z } from 'zod';
import type { AppDeps } from '../http/app-deps';
import type { Api } from '../http/api';
import { ADMIN_ROLES } from '../http/auth';
import {
  apiKeyIdParams,
  apiKeySchema,
  createApiKeyBody,
  createdApiKeySchema,
  rotateApiKeyBody,
  rotatedApiKeySchema,
} from './api-key.schemas';
import { createAccountKey, listAccountKeys, revokeAccountKey, rotateAccountKey } from './api-key.service';

/** The account's API keys, for developers and superadmins (docs/api.md "API keys"). */
export function registerApiKeyRoutes(api: Api, { prisma }: AppDeps): void {
  const tag = 'API keys';
  const roles = ADMIN_ROLES;

  api.route({
    method: 'get',
    path: '/api-keys',
    tag,
    roles,
    summary: "List the account's API keys, newest first (a hint of each, never the key)",
    response: z.array(apiKeySchema),
    handler: ({ principal }) => listAccountKeys(prisma, principal.accountId),
  });

  api.route({
    method: 'post',
    path: '/api-keys',
    tag,
    roles,
    summary: 'Issue an API key of a role up to your own; the key is returned only here',
    body: createApiKeyBody,
    status: 201,
    response: createdApiKeySchema,
    handler: ({ principal, body }) => createAccountKey(prisma, principal, body),
  });

  api.route({
    method: 'post',
    path: '/api-keys/{id}/revoke',
    tag,
    roles,
    summary: 'End a key now: it answers 401 at once. 409 if it no longer works, or makes this request',
    params: apiKeyIdParams,
    response: apiKeySchema,
    errors: [404, 409],
    handler: ({ principal, params }) => revokeAccountKey(prisma, principal, params.id),
  });

  api.route({
    method: 'post',
    path: '/api-keys/{id}/rotate',
    tag,
    roles,
    summary:
      'Issue a successor of the same role (returned only here); the old key works for the overlap. 409 if rotated before and that successor still works (unless force), or if the key makes this request with no overlap',
    params: apiKeyIdParams,
    body: rotateApiKeyBody,
    response: rotatedApiKeySchema,
    errors: [404, 409],
    handler: ({ principal, params, body }) => rotateAccountKey(prisma, principal, params.id, body),
  });
}
