import { Client } from 'pg';

/**
 * With BENCH_PG_STATEMENTS=1 (bench/support.ts preloads pg_stat_statements): what every database of the
 * cluster ran over a row, per job: the bench's own statements and, on the server engine, Temporal's
 * persistence and visibility. `reset()` before a row, `print(label, jobs)` after it. Execution time only
 * (no parse, no commit's flush): read the calls and the shares.
 */
export async function pgStatements(databaseUrl: string) {
  if (!process.env.BENCH_PG_STATEMENTS)
    return { reset: async () => undefined, print: async () => undefined, close: async () => undefined };
  const client = new Client({ connectionString: databaseUrl });
  // The cluster stops at the bench's end: a connection still open then must not end the run with an error.
  client.on('error', () => undefined);
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const top = Number(process.env.BENCH_PG_STATEMENTS_TOP ?? 25);
  return {
    close: () => client.end(),
    reset: async () => void (await client.query('SELECT pg_stat_statements_reset()')),
    print: async (label: string, jobs: number) => {
      const { rows: byDatabase } = await client.query(
        `SELECT d.datname, sum(s.calls)::float8 AS calls, sum(s.total_exec_time)::float8 AS ms, sum(s.rows)::float8 AS rows,
                sum(s.wal_records)::float8 AS wal_records, sum(s.wal_bytes)::float8 AS wal_bytes
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE s.query NOT LIKE '%pg_stat_statements%'
          GROUP BY d.datname ORDER BY ms DESC`,
      );
      console.log(`\npg_stat_statements per ${label} (${jobs} jobs), by database:`);
      console.table(
        Object.fromEntries(
          byDatabase.map((row) => [
            row.datname,
            {
              calls: +(row.calls / jobs).toFixed(2),
              'exec ms': +(row.ms / jobs).toFixed(3),
              rows: +(row.rows / jobs).toFixed(2),
              'wal records': +(row.wal_records / jobs).toFixed(1),
              'wal bytes': Math.round(row.wal_bytes / jobs),
            },
          ]),
        ),
      );
      const { rows } = await client.query(
        `SELECT d.datname, s.calls::float8 AS calls, s.total_exec_time::float8 AS ms, s.rows::float8 AS rows,
                s.wal_bytes::float8 AS wal_bytes, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 150) AS query
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
          WHERE s.query NOT LIKE '%pg_stat_statements%'
          ORDER BY s.total_exec_time DESC LIMIT $1`,
        [top],
      );
      for (const row of rows)
        console.log(
          `${row.datname.padEnd(20)} calls ${(row.calls / jobs).toFixed(2).padStart(6)}  ms ${(row.ms / jobs).toFixed(3).padStart(7)}  rows ${(row.rows / jobs).toFixed(1).padStart(5)}  wal ${String(Math.round(row.wal_bytes / jobs)).padStart(6)}  ${row.query}`,
        );
    },
  };
}
