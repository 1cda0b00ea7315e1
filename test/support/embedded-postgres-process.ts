// Runs an embedded PostgreSQL cluster in its own process, as `npm start` does, until SIGTERM.
// Usage: tsx test/support/embedded-postgres-process.ts <dataDir> <port>
import { startEmbeddedPostgres } from '../../src/runtime/embedded-postgres';

async function main(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  const database = await startEmbeddedPostgres({ dataDir: dataDir!, port: Number(port), database: 'billing' });
  console.log(JSON.stringify({ url: database.url }));
  process.on('SIGTERM', () => {
    void database.stop().finally(() => process.exit(0));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
