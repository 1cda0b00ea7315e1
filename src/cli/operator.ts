import os from 'node:os';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { paths } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { createPrisma, type Db } from '../db/prisma';
import type { OperatorActor } from '../accounts';

/**
 * What every operator command shares (docs/operations.md, "Operator commands"): its exit codes,
 * `--help`, option parsing, the database, and who runs it.
 *
 * Exit codes: 0 done; 1 the operation failed or was refused (an unknown account, key, plan or
 * payment, a refusal, an error); 2 bad usage (unknown command or option, a missing or bad value).
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Bad usage: the message (naming the option, with the usage below it) and exit 2. */
export class UsageError extends Error {}

/** The operation failed or was refused: the message and exit 1. Thrown, not exited, so that cleanup runs. */
export class CommandError extends Error {}

export function fail(message: string): never {
  throw new UsageError(message);
}

export function refuse(message: string): never {
  throw new CommandError(message);
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs with the conventions: `--help` or `-h` prints the usage on stdout and exits 0 (even
 * beside other arguments); an unknown option, a missing value or a positional argument the command
 * does not take is a usage error naming it.
 */
export function parseCommandLine<const T extends Options>(
  usage: string,
  options: T,
  config: { args?: string[]; allowPositionals?: boolean } = {},
) {
  const args = config.args ?? process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage);
    process.exit(EXIT_OK);
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: config.allowPositionals ?? false });
  } catch (error) {
    // "Unknown option '--x'. To specify a positional argument starting with a '-', ..." : its first sentence.
    throw new UsageError(`${(error as Error).message.split('. ')[0]!.replace(/\.$/, '')}.\n${usage}`);
  }
}

/** Runs a command's main and exits with its code: UsageError 2, any other error 1 (message on stderr). */
export function runCommand(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(code ?? EXIT_OK),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exit(error instanceof UsageError ? EXIT_USAGE : EXIT_FAILED);
    },
  );
}

/** The OS user and host the command runs as: `alice@ops-1` (a uid without a passwd entry: `uid:1000@ops-1`). */
export function osIdentity(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER || `uid:${process.getuid?.() ?? 'unknown'}`;
  }
  return `${user}@${os.hostname()}`;
}

/** Who makes the changes: `--operator NAME` when given, else the OS user and host; both are recorded. */
export function operatorActor(name: string | undefined, command: string): OperatorActor {
  const runAs = osIdentity();
  if (name === undefined) return { operator: runAs, runAs, command };
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex
  if (!trimmed || trimmed.length > 100 || /[\u0000-\u001f\u007f]/.test(trimmed))
    fail('--operator must be a name of 1 to 100 printable characters.');
  return { operator: trimmed, runAs, command };
}

/** The `--operator` option of commands that change something. */
export const OPERATOR_OPTION = { operator: { type: 'string' } } as const;

/**
 * Runs an operator command against the service's database: the running embedded cluster when
 * `npm start` is up, a briefly started one when it is not, or DATABASE_URL.
 */
export async function withDatabase<T>(work: (prisma: Db) => Promise<T>): Promise<T> {
  const database = await resolveDatabase();
  const prisma = createPrisma(database.url, 2);
  try {
    await migrate(database.url, paths.migrations);
    return await work(prisma);
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
}
