import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';

// The CLI only needs a URL for commands that touch a database; generate and diff run offline.
process.env.DATABASE_URL ??= 'postgresql://postgres:postgres@127.0.0.1:5432/billing';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
});
