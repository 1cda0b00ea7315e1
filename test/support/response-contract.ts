import { createChecker, operationsOf, type OpenApiDocument, type Operation } from '../fuzz/openapi-model';

/**
 * Every answer a test receives through apiClient is checked against what /openapi.json documents for
 * its operation (status and body schema): a route whose answer drifts from its own response schema
 * fails the test that called it, whatever that test asserts.
 */
interface Contract {
  match(method: string, path: string): Operation | undefined;
  check: ReturnType<typeof createChecker>;
}

const contracts = new Map<string, Promise<Contract>>();

function templateRegex(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

async function loadContract(baseUrl: string): Promise<Contract> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  // Literal paths before templated ones, so /customers/search is not taken for /customers/{id}.
  const operations = operationsOf(document)
    .map((operation) => ({ operation, regex: templateRegex(operation.path), templated: operation.path.includes('{') }))
    .sort((a, b) => Number(a.templated) - Number(b.templated));
  return {
    match: (method, path) => operations.find((entry) => entry.operation.method === method && entry.regex.test(path))?.operation,
    check: createChecker(document),
  };
}

/** Problems with an answer (empty when it is as documented, or when the path is not an operation: a test probing unknown routes). */
export async function contractProblems(
  baseUrl: string,
  method: string,
  pathAndQuery: string,
  answer: { status: number; contentType: string | null; body: unknown },
): Promise<string[]> {
  const path = pathAndQuery.split('?')[0]!;
  if (path === '/openapi.json') return [];
  if (!contracts.has(baseUrl)) contracts.set(baseUrl, loadContract(baseUrl));
  const contract = await contracts.get(baseUrl)!;
  const operation = contract.match(method, path);
  // The fuzzer counts every 5xx as a fault; tests that stop PostgreSQL or Temporal expect the documented 503.
  return operation ? contract.check(operation, answer).filter((problem) => !problem.startsWith('server error')) : [];
}
