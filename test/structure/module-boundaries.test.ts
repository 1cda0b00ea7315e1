import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * The modules' boundaries (docs/architecture.md, "Modules") are ESLint rules: code planted at a real file's
 * path is linted with the repository's own configuration, and each rule must refuse what it is there for
 * and let the allowed form pass.
 */
interface Planted {
  filePath: string;
  code: string;
  ruleId: string;
}

const root = path.resolve(__dirname, '../..');
const cases = {
  recordsOfAnotherModule: {
    filePath: 'src/coupons/coupon.service.ts',
    code: "import { findInvoiceRow } from '../invoices/invoice.records';\nexport const read = findInvoiceRow;\n",
    ruleId: 'modules/private-files',
  },
  indexOfAnotherModule: {
    filePath: 'src/coupons/coupon.service.ts',
    code: "import { findInvoice } from '../invoices';\nexport const read = findInvoice;\n",
    ruleId: 'modules/private-files',
  },
  activityReachingIntoAModule: {
    filePath: 'activities/index.ts',
    code: "export { createMailer } from '../src/emails/mailer';\n",
    ruleId: 'modules/private-files',
  },
  schemasThroughAnIndex: {
    filePath: 'src/credit-notes/credit-note.schemas.ts',
    code: "import { invoiceSchema } from '../invoices';\nexport const shape = invoiceSchema.shape;\n",
    ruleId: 'modules/private-files',
  },
  schemasFromSchemas: {
    filePath: 'src/credit-notes/credit-note.schemas.ts',
    code: "import { invoiceSchema } from '../invoices/invoice.schemas';\nexport const shape = invoiceSchema.shape;\n",
    ruleId: 'modules/private-files',
  },
  prismaInAService: {
    filePath: 'src/coupons/coupon.service.ts',
    code: "import type { Db } from '../db/prisma';\nexport const read = (db: Db) => db.customer.findMany({});\n",
    ruleId: 'no-restricted-syntax',
  },
  prismaInRecords: {
    filePath: 'src/coupons/coupon.records.ts',
    code: "import type { Db } from '../db/prisma';\nexport const read = (db: Db) => db.customer.findMany({});\n",
    ruleId: 'no-restricted-syntax',
  },
  rawSqlInAService: {
    filePath: 'src/coupons/coupon.service.ts',
    code: "import type { Db } from '../db/prisma';\nexport const read = (db: Db) => db.$queryRawUnsafe('SELECT id FROM coupons');\n",
    ruleId: 'no-restricted-syntax',
  },
  statementInAService: {
    filePath: 'src/coupons/coupon.service.ts',
    code: "import { statementOf } from '../db/sql';\nexport const statement = statementOf('coupons', 'SELECT id FROM coupons');\n",
    ruleId: 'no-restricted-syntax',
  },
  httpErrorInRecords: {
    filePath: 'src/webhooks/delivery-log.records.ts',
    code: "import { notFound } from '../http/errors';\nexport const missing = () => notFound('delivery', 'x');\n",
    ruleId: 'no-restricted-imports',
  },
  httpErrorInAStateMachine: {
    filePath: 'src/subscriptions/subscription-machine.ts',
    code: "import { ApiError } from '../http/errors';\nexport const kind = ApiError;\n",
    ruleId: 'no-restricted-imports',
  },
  httpErrorInAWorkflow: {
    filePath: 'workflows/subscription.ts',
    code: "import type { ApiError } from '../src/http/errors';\nexport type Refusal = ApiError;\n",
    ruleId: 'no-restricted-imports',
  },
} satisfies Record<string, Planted>;

let problems: Record<keyof typeof cases, string[]>;

beforeAll(() => {
  const planted = Object.values(cases);
  const answers = JSON.parse(
    execFileSync(process.execPath, [path.join(__dirname, 'lint-planted.mjs')], {
      cwd: root,
      input: JSON.stringify(planted.map(({ filePath, code }) => ({ filePath: path.join(root, filePath), code }))),
      encoding: 'utf8',
    }),
  ) as { ruleId: string | null; message: string }[][];
  problems = Object.fromEntries(
    Object.keys(cases).map((name, at) => [
      name,
      answers[at]!.filter((answer) => answer.ruleId === planted[at]!.ruleId).map((answer) => answer.message),
    ]),
  ) as typeof problems;
});

describe("a module's private files", () => {
  test("another module's records file is refused; its index.ts is the way in", () => {
    expect(problems.recordsOfAnotherModule).toEqual([
      "src/invoices/invoice.records.ts is private to the module invoices: import it from invoices's index.ts",
    ]);
    expect(problems.indexOfAnotherModule).toEqual([]);
  });

  test('activities go through the index.ts too', () => {
    expect(problems.activityReachingIntoAModule).toEqual([
      "src/emails/mailer.ts is private to the module emails: import it from emails's index.ts",
    ]);
  });

  test("a schemas file reads another module's schemas file, never its index.ts (which loads its services)", () => {
    expect(problems.schemasThroughAnIndex).toEqual([
      expect.stringContaining("a schemas file imports other modules' schemas files directly"),
    ]);
    expect(problems.schemasFromSchemas).toEqual([]);
  });
});

describe('one data-access home', () => {
  test("a Prisma model call outside records is refused, and allowed in the module's records file", () => {
    expect(problems.prismaInAService).toEqual([
      "Prisma's models are called in the module's *.records.ts only: call a records function.",
    ]);
    expect(problems.prismaInRecords).toEqual([]);
  });

  test('raw SQL and statements outside records are refused', () => {
    expect(problems.rawSqlInAService).toEqual(
      expect.arrayContaining(["SQL is written and run in the module's *.records.ts only (src/db/sql.ts runs it)."]),
    );
    expect(problems.statementInAService).toEqual(
      expect.arrayContaining([
        "Statements are declared and run in the module's *.records.ts only: call a records function.",
        "SQL text lives in the module's *.records.ts only.",
      ]),
    );
  });
});

describe('no HTTP below the services', () => {
  test('records, state machines and workflows do not import HTTP errors', () => {
    for (const refused of [
      problems.httpErrorInRecords,
      problems.httpErrorInAStateMachine,
      problems.httpErrorInAWorkflow,
    ])
      expect(refused).toEqual([expect.stringContaining('HTTP errors and statuses belong to services and routes.')]);
  });
});
