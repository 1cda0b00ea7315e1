#!/usr/bin/env node
// Builds the dashboard's single-page app (src/dashboard/, React + Vite) into dist/dashboard/, which the
// API serves at /dashboard (src/http/dashboard-page.ts). `npm install` runs it (postinstall), so a fresh
// clone serves the dashboard; `npm run build:dashboard` runs it again after a change. Skipped, saying
// so, where the sources or Vite are not there (an image's dependency layer before its sources are copied).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'src', 'dashboard');
const out = path.join(root, 'dist', 'dashboard');

if (!fs.existsSync(path.join(source, 'index.html'))) {
  console.log('[dashboard] src/dashboard/ is not here yet: not built (run npm run build:dashboard once it is).');
  process.exit(0);
}
let vite;
try {
  vite = await import('vite');
} catch {
  console.log('[dashboard] vite is not installed (dev dependencies omitted?): not built.');
  process.exit(0);
}
const started = Date.now();
await vite.build({
  root: source,
  base: '/dashboard/',
  configFile: false,
  logLevel: 'warn',
  // JSX compiled to React 19's automatic runtime by Vite's own transformer (no Babel, no plugin).
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: out,
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    rolldownOptions: {
      // React Query marks its modules "use client" for server components; meaningless in a browser-only bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
const assets = fs.readdirSync(path.join(out, 'assets'));
const bytes = assets.reduce((sum, file) => sum + fs.statSync(path.join(out, 'assets', file)).size, 0);
console.log(
  `[dashboard] built into dist/dashboard/ in ${((Date.now() - started) / 1000).toFixed(1)} s (${assets.length} assets, ${Math.round(bytes / 1024)} KB)`,
);
