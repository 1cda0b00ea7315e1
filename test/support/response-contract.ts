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
  // The most literal templates a path matches are its operations, so /customers/search (any method) is
  // never taken for /customers/{id}: the API answers its other methods 405 (src/http/api.ts methodGate).
  const operations = operationsOf(document).map((operation) => ({
    operation,
    regex: templateRegex(operation.path),
    parameters: (operation.path.match(/\{[^}]+\}/g) ?? []).length,
  }));
  return {
    match: (method, path) => {
      const matching = operations.filter((entry) => entry.regex.test(path));
      const fewest = Math.min(...matching.map((entry) => entry.parameters));
      return matching.find((entry) => entry.parameters === fewest && entry.operation.method === method)?.operation;
    },
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
