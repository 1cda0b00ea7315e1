import { paths } from '../config';
import { resolveDatabase } from '../db/local-database';
import { migrate } from '../db/migrator';

async function main(): Promise<void> {
  const database = await resolveDatabase();
  try {
    const result = await migrate(database.url, paths.migrations);
    if (result.applied.length === 0) console.log(`Database is up to date (${result.alreadyApplied} migrations applied).`);
    for (const name of result.applied) console.log(`Applied ${name}`);
  } finally {
    await database.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
