import type { Page } from 'playwright-core';
import { createUser } from '../../src/dashboard-auth/user.service';
import type { Db } from '../../src/db/prisma';
import type { Role } from '../../src/http/auth';
import { apiClient, type ApiClient } from './harness';

let users = 0;

/** A dashboard user with a membership of `accountId`; a unique email unless given. */
export async function createTestUser(
  prisma: Db,
  accountId: string,
  options: { role?: Role; email?: string; password?: string; name?: string } = {},
): Promise<{ userId: string; email: string; password: string }> {
  const email = options.email ?? `user${++users}.${Date.now()}@example.com`;
  const password = options.password ?? 'correct horse battery';
  const created = await createUser(prisma, {
    accountId,
    email,
    name: options.name ?? 'Test User',
    password,
    role: options.role ?? 'developer',
  });
  if (created.outcome !== 'created') throw new Error(`createUser: ${created.outcome}`);
  return { userId: created.user_id, email: created.email, password };
}

export interface SessionLogin {
  status: number;
  body: any;
  headers: Headers;
  /** The session cookie's value, if one was set. */
  token?: string;
  setCookie: string | null;
}

export async function login(
  baseUrl: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<SessionLogin> {
  const response = await fetch(`${baseUrl}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const setCookie = response.headers.get('set-cookie');
  const token = setCookie?.match(/cc_session=([^;]*)/)?.[1] || undefined;
  return { status: response.status, body: await response.json(), headers: response.headers, token, setCookie };
}

/**
 * A browser's session as the dashboard uses it: the cookie on every request, and on writes the
 * session's CSRF token and the page's own Origin. `api` checks answers against /openapi.json as apiClient does.
 */
export interface TestSession {
  token: string;
  csrf: string;
  cookie: Record<string, string>;
  /** Cookie, CSRF token and Origin: what the dashboard sends on a write. */
  writeHeaders: Record<string, string>;
  api: ApiClient;
  session(method: string, path?: string, body?: unknown, headers?: Record<string, string>): Promise<any>;
}

export async function signIn(baseUrl: string, email: string, password: string): Promise<TestSession> {
  const answer = await login(baseUrl, { email, password });
  if (answer.status !== 201 || !answer.token)
    throw new Error(`sign-in: ${answer.status} ${JSON.stringify(answer.body)}`);
  const cookie = { cookie: `cc_session=${answer.token}` };
  const writeHeaders = { ...cookie, 'x-csrf-token': answer.body.csrf_token as string, origin: baseUrl };
  const base = apiClient(baseUrl);
  // Every request carries the cookie; writes also the token and Origin, as the dashboard's fetch does.
  const api: ApiClient = {
    ...base,
    get: (path, headers) => base.get(path, { ...cookie, ...headers }),
    post: (path, body, headers) => base.post(path, body, { ...writeHeaders, ...headers }),
    put: (path, body, headers) => base.put(path, body, { ...writeHeaders, ...headers }),
    patch: (path, body, headers) => base.patch(path, body, { ...writeHeaders, ...headers }),
    delete: (path, headers) => base.delete(path, { ...writeHeaders, ...headers }),
    request: (method, path, body, headers) => base.request(method, path, body, { ...writeHeaders, ...headers }),
  };
  return {
    token: answer.token,
    csrf: answer.body.csrf_token,
    cookie,
    writeHeaders,
    api,
    async session(method, path = '', body, headers = {}) {
      const response = await fetch(`${baseUrl}/dashboard/api/session${path}`, {
        method,
        headers: {
          ...(method === 'GET' ? cookie : writeHeaders),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    },
  };
}

/** Settings, opened from the main navigation as a person does. */
export async function openSettings(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main', exact: true })
    .getByRole('link', { name: 'Settings', exact: true })
    .click();
  await page.getByRole('heading', { name: 'Settings', level: 1, exact: true }).waitFor();
}
