import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

// The parts of /openapi.json the fuzzer reads, and a checker of answers against it (ajv, JSON Schema 2020-12).

export type Schema = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** OpenAPI path, e.g. `/customers/{externalKey}`. */
  path: string;
  parameters: Parameter[];
  body?: Schema;
  /** Documented statuses, as strings. */
  statuses: string[];
  /** Whether the operation needs cc-api-key. */
  secured: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema>; responses?: Record<string, any> };
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []) as Parameter[],
      body: operation.requestBody?.content?.['application/json']?.schema,
      statuses: Object.keys(operation.responses ?? {}),
      secured: (operation.security ?? []).length > 0,
    })),
  );
}

/** The schema `ref` points to (`#/components/schemas/X`), or `schema` itself. */
export function resolve(document: OpenApiDocument, schema: Schema): Schema {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 10; hops += 1) {
    current = document.components.schemas[String(current.$ref).split('/').pop()!]!;
  }
  return current;
}

export interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

const DOCUMENT_ID = 'https://billing.test/openapi.json';

/** Whether `contentType` (parameters such as `; charset` aside) is `range` or falls in it (`application/*`, `*` + `/*`). */
export function mediaTypeMatches(range: string, contentType: string | null): boolean {
  const essence = contentType?.split(';')[0]!.trim().toLowerCase();
  if (!essence) return false;
  const [type, subtype] = range.toLowerCase().split('/');
  const [answerType, answerSubtype] = essence.split('/');
  return (type === '*' || type === answerType) && (subtype === '*' || subtype === answerSubtype);
}

/** Checks an answer against its operation: a documented status, and a body that matches the documented schema. */
export function createChecker(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

  function validatorFor(operation: Operation, status: string): ValidateFunction | undefined {
    const key = `${operation.method} ${operation.path} ${status}`;
    if (!validators.has(key)) {
      const response = document.paths[operation.path]![operation.method.toLowerCase()].responses[status];
      if (!response?.content?.['application/json']) return undefined;
      const ref = `${DOCUMENT_ID}#/${pointer('paths', operation.path, operation.method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`;
      validators.set(key, ajv.compile({ $ref: ref }));
    }
    return validators.get(key);
  }

  /** The media types documented for the answer (`application/pdf`, `*` + `/*`...). */
  function mediaTypesOf(operation: Operation, status: string): string[] {
    return Object.keys(
      document.paths[operation.path]![operation.method.toLowerCase()].responses[status]?.content ?? {},
    );
  }

  /** Problems with the answer (empty when it is as documented). */
  return function check(operation: Operation, answer: Answer): string[] {
    const problems: string[] = [];
    const status = String(answer.status);
    if (answer.status >= 500 && (answer.status !== 502 || !operation.statuses.includes(status)))
      problems.push(`server error ${status}`);
    if (!operation.statuses.includes(status)) {
      problems.push(`undocumented status ${status} (documented: ${operation.statuses.join(', ')})`);
      return problems;
    }
    const validate = validatorFor(operation, status);
    if (!validate) {
      // A file: its Content-Type is one the document names, or falls in a range it names.
      const documented = mediaTypesOf(operation, status);
      if (documented.length > 0 && !documented.some((range) => mediaTypeMatches(range, answer.contentType)))
        problems.push(`content type ${answer.contentType}, not the documented ${documented.join(' or ')}`);
      return problems;
    }
    if (!answer.contentType?.startsWith('application/json'))
      problems.push(`content type ${answer.contentType}, not JSON`);
    else if (!validate(answer.body))
      problems.push(`body does not match the ${status} schema: ${ajv.errorsText(validate.errors)}`);
    return problems;
  };
}
