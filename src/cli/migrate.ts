import { paths } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';
import { parseCommandLine, runCommand } from './operator';

const usage = `Usage: npm run db:migrate
  Applies pending migrations to DATABASE_URL (or the embedded database).
Exit codes: 0 done, 1 failed, 2 bad usage (docs/operations.md).`;

async function main(): Promise<void> {
  parseCommandLine(usage, {});
  const database = await resolveDatabase();
  try {
    const result = await migrate(database.url, paths.migrations);
    if (result.applied.length === 0)
      console.log(`Database is up to date (${result.alreadyApplied} migrations applied).`);
    for (const name of result.applied) console.log(`Applied ${name}`);
  } finally {
    await database.stop();
  }
}

runCommand(main);
