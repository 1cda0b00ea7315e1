import { Client } from 'pg';

/** A database of its own on the suite's cluster (dropped first if a run left it), for a test that migrates or seeds one. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = new Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}
