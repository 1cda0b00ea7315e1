import http from 'node:http';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { DASHBOARD_DIST } from '../../src/http/dashboard-page';
import { ensureDashboardBuilt } from '../support/browser';
import { expectStatus, startTwoAccountApp, type TwoAccountApp } from '../support/harness';
import { createCustomer, simpleInvoice } from '../support/payments';
import { hostedPath } from '../hosted-pages/pages';
import { INITIAL_WINDOW_BYTES } from '../../src/http/compression';

/**
 * Compressed answers (docs/decisions.md §19): the dashboard's assets, the hosted pages and JSON come gzip- or
 * brotli-compressed to a client that says it takes them, with `Vary: Accept-Encoding`, and plain to one that
 * does not. Read with node:http, which sends exactly the headers given (fetch would add its own Accept-Encoding
 * and decompress behind the test's back).
 */
let t: TwoAccountApp;

beforeAll(async () => {
  ensureDashboardBuilt();
  t = await startTwoAccountApp('Compressing Shop');
});
afterAll(() => t?.app.close());

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire. */
  body: Buffer;
}

function get(pathname: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(new URL(pathname, t.app.baseUrl), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** The dashboard's script as built, and its path as index.html names it. */
function dashboardScript(): { path: string; bytes: Buffer } {
  const html = fs.readFileSync(path.join(DASHBOARD_DIST, 'index.html'), 'utf8');
  const src = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  return { path: src, bytes: fs.readFileSync(path.join(DASHBOARD_DIST, 'assets', path.basename(src))) };
}

describe('compressed answers', () => {
  it('serves the dashboard script gzip-compressed to a client that takes gzip, and plain to one that does not', async () => {
    const script = dashboardScript();
    const gzipped = await get(script.path, { 'accept-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['vary']).toMatch(/accept-encoding/i);
    expect(gzipped.headers['cache-control']).toContain('immutable');
    expect(zlib.gunzipSync(gzipped.body).equals(script.bytes)).toBe(true);
    // Well under half of the built file: what the first load costs over the network.
    expect(gzipped.body.length).toBeLessThan(script.bytes.length / 2);

    const plain = await get(script.path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(script.bytes)).toBe(true);

    const identity = await get(script.path, { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.equals(script.bytes)).toBe(true);
  });

  it('prefers brotli when the client takes it (as browsers do), decompressing to the same script', async () => {
    const script = dashboardScript();
    const answer = await get(script.path, { 'accept-encoding': 'gzip, deflate, br' });
    expect(answer.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(answer.body).equals(script.bytes)).toBe(true);
  });

  it('compresses the dashboard page itself and a JSON list', async () => {
    const page = await get('/dashboard/customers', { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    const html = page.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(page.body) : page.body;
    expect(html.toString('utf8')).toContain('/dashboard/assets/');

    // About 300 bytes a customer: 60 of them are past the initial window.
    // One after another: ten at once on a busy machine can wait past the transaction's bound (503 database_busy).
    for (let n = 0; n < 60; n++) await createCustomer(t.api, `Customer number ${n} with a long enough name`);
    const list = await get('/customers?page=1&take=100', { 'accept-encoding': 'gzip', 'cc-api-key': t.apiKey });
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toMatch(/^application\/json/);
    expect(list.headers['content-encoding']).toBe('gzip');
    const customers = JSON.parse(zlib.gunzipSync(list.body).toString('utf8'));
    expect(customers.length).toBeGreaterThanOrEqual(60);

    const plainList = await get('/customers?page=1&take=100', { 'cc-api-key': t.apiKey });
    expect(plainList.headers['content-encoding']).toBeUndefined();
    expect(plainList.body.length).toBeGreaterThanOrEqual(INITIAL_WINDOW_BYTES);
    expect(JSON.parse(plainList.body.toString('utf8'))).toEqual(customers);
  });

  it('answers JSON that fits in one round trip plain, even to a client taking gzip and brotli', async () => {
    for (let n = 0; n < 10; n++) await createCustomer(t.api, `Window customer ${n} with a long enough name`);
    // Ten customers: past compression's own 1 KB threshold, well inside the initial window.
    const short = await get('/customers?page=1&take=10', {
      'accept-encoding': 'gzip, deflate, br',
      'cc-api-key': t.apiKey,
    });
    expect(short.status).toBe(200);
    expect(short.headers['content-encoding']).toBeUndefined();
    expect(short.body.length).toBeGreaterThan(1024);
    expect(short.body.length).toBeLessThan(INITIAL_WINDOW_BYTES);
    const customers = JSON.parse(short.body.toString('utf8')) as { id: string }[];
    expect(customers).toHaveLength(10);
    const one = await get(`/customers/${customers[0]!.id}`, { 'accept-encoding': 'gzip', 'cc-api-key': t.apiKey });
    expect(one.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(one.body.toString('utf8'))).toMatchObject({ id: customers[0]!.id });
  });

  it("compresses an invoice's hosted page; another account's key reads none of the first account's list", async () => {
    const customer = await createCustomer(t.api, 'Hosted Reader');
    const draft = await simpleInvoice(t.api, customer.id, 4200);
    const invoice = expectStatus(await t.api.post(`/invoices/${draft.id}/finalize`), 200, 'finalize');
    const page = await get(hostedPath(invoice), { 'accept-encoding': 'gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(page.headers['vary']).toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(page.body).toString('utf8')).toContain(invoice.number);

    const theirs = await t.other.get(`/invoices/${invoice.id}`);
    expect(theirs.status).toBe(404);
  });
});
