import fc from 'fast-check';
import { requestArbitrary, IdPool, type FuzzRequest } from './arbitraries';
import { createChecker, operationsOf, type Answer, type OpenApiDocument, type Operation } from './openapi-model';

// Drives every operation of /openapi.json with generated requests and checks each answer against the
// document: never a 5xx, a documented status, a body that matches the documented schema.

export interface Failure {
  operation: string;
  request: FuzzRequest;
  answer: Answer;
  problems: string[];
}

export interface FuzzReport {
  cases: number;
  /** `METHOD path status` -> count. */
  statuses: Record<string, number>;
  /** The first failure of each failing operation. */
  failures: Failure[];
  seed: number;
  ms: number;
}

export interface FuzzOptions {
  baseUrl: string;
  apiKey: string;
  runsPerOperation: number;
  seed?: number;
  /** Share of requests broken in one place (0..1). */
  invalidShare?: number;
  /** Ids of resources created beforehand, by the path that answered them (e.g. `/customers`). */
  seedIds?: [string, unknown][];
  /** Time for all operations: each gets an equal share of what is left, and stops early when it runs out. */
  timeLimitMs?: number;
  log?: (line: string) => void;
}

async function send(baseUrl: string, apiKey: string, request: FuzzRequest): Promise<Answer> {
  const query = request.query.length > 0 ? `?${new URLSearchParams(request.query).toString()}` : '';
  const headers: Record<string, string> = {};
  if (request.key === 'valid') headers['cc-api-key'] = apiKey;
  if (request.key === 'unknown') headers['cc-api-key'] = 'sk_test_unknown';
  let body: string | undefined;
  if (request.body && 'json' in request.body) {
    body = JSON.stringify(request.body.json) ?? 'null';
    headers['content-type'] = 'application/json';
  } else if (request.body) {
    body = request.body.raw;
    headers['content-type'] = request.body.contentType;
  }
  const response = await fetch(`${baseUrl}${request.path}${query}`, {
    method: request.method,
    headers,
    body,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: the checker says so
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body: parsed };
}

export async function fuzzApi(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const document = (await (await fetch(`${options.baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  const check = createChecker(document);
  const ids = new IdPool();
  for (const [path, body] of options.seedIds ?? []) ids.add(path, body);
  const seed = options.seed ?? Date.now() % 2 ** 31;
  const report: FuzzReport = { cases: 0, statuses: {}, failures: [], seed, ms: 0 };

  const operations = operationsOf(document).filter((operation) => operation.path !== '/openapi.json');
  for (const [index, operation] of operations.entries()) {
    const name = `${operation.method} ${operation.path}`;
    let failure: Failure | undefined;
    const property = fc.asyncProperty(
      requestArbitrary(document, operation, ids, options.invalidShare),
      async (request) => {
        const answer = await send(options.baseUrl, options.apiKey, request).catch((error: Error): Answer => ({
          status: 0,
          contentType: null,
          body: `no answer: ${error.message}`,
        }));
        report.cases += 1;
        const key = `${name} ${answer.status}`;
        report.statuses[key] = (report.statuses[key] ?? 0) + 1;
        if (answer.status >= 200 && answer.status < 300) ids.add(operation.path, answer.body);
        const problems = answer.status === 0 ? [String(answer.body)] : check(operation as Operation, answer);
        if (problems.length > 0 && !failure) failure = { operation: name, request, answer, problems };
        return problems.length === 0;
      },
    );
    // No shrinking: each shrinking step is another request; the first failing case is reported as is.
    const left =
      options.timeLimitMs === undefined
        ? undefined
        : Math.max(1, (options.timeLimitMs - (Date.now() - started)) / (operations.length - index));
    await fc.check(property, {
      numRuns: options.runsPerOperation,
      seed: seed + index,
      endOnFailure: true,
      ...(left === undefined ? {} : { interruptAfterTimeLimit: Math.floor(left), markInterruptAsFailure: false }),
    });
    if (failure) {
      report.failures.push(failure);
      options.log?.(
        `FAIL ${name}: ${failure.problems.join('; ')}\n  request: ${JSON.stringify(failure.request)}\n  answer: ${JSON.stringify(failure.answer).slice(0, 500)}`,
      );
    }
  }
  report.ms = Date.now() - started;
  return report;
}
