// One server of the benchmark, in its own process so that the load generator does not share its CPU time.
// Usage: tsx bench/server-process.ts api|baseline   (DATABASE_URL, TEMPORAL_ADDRESS, BENCH_ACCOUNT_ID from env)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'pg';
import { Connection } from '@temporalio/client';
import { createApp } from '../src/app';
import { createPrisma } from '../src/db/prisma';
import { temporalClient } from '../src/temporal/client';

async function main(): Promise<void> {
  const mode = process.argv[2];
  let handler: http.RequestListener;
  if (mode === 'api') {
    const connection = Connection.lazy({ address: process.env.TEMPORAL_ADDRESS! });
    handler = createApp({ prisma: createPrisma(process.env.DATABASE_URL!), temporal: temporalClient(connection) });
  } else if (mode === 'baseline') {
    // The floor: Express plus the same single-row query, no auth, validation or mapping.
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    const accountId = process.env.BENCH_ACCOUNT_ID!;
    const app = express();
    app.get('/customers/:id', async (req, res) => {
      const { rows } = await pool.query(
        'SELECT * FROM customers WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL',
        [req.params.id, accountId],
      );
      if (rows.length === 0) res.status(404).json({ error: 'not found' });
      else res.json(rows[0]);
    });
    handler = app;
  } else {
    throw new Error('mode must be api or baseline');
  }
  const server = http.createServer(handler);
  // An exit of its own on SIGTERM, so that --cpu-prof (BENCH_CPU_PROFILE_DIR) writes its profile.
  process.once('SIGTERM', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
