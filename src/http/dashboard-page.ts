import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { projectRoot } from '../config';
import { ApiError } from './errors';

/** Where `npm run build:dashboard` (run by `npm install`) writes the single-page app (docs/decisions.md §19). */
export const DASHBOARD_DIST = path.join(projectRoot, 'dist', 'dashboard');

/**
 * GET /dashboard and below: the dashboard's single-page app, from the service itself (no CDN), under
 * the same security headers as every answer. Hashed assets are cached for good; any other path is the
 * app's own route and gets index.html, never cached, so a new build is picked up at the next load.
 * `/dashboard/api/` is left to the session endpoints.
 */
export function dashboardRouter(dir = DASHBOARD_DIST): express.Router {
  const router = express.Router();
  router.use('/dashboard/assets', (req, res, next) => {
    res.locals.route = '/dashboard/assets/{file}';
    next();
  });
  router.use(
    '/dashboard/assets',
    express.static(path.join(dir, 'assets'), { index: false, immutable: true, maxAge: '365d', redirect: false }),
  );
  router.use('/dashboard/assets', (req) => {
    throw new ApiError('not_found', 'route_not_found', `No such file: /dashboard/assets${req.path}`);
  });
  router.get(['/dashboard', '/dashboard/{*rest}'], async (req, res, next) => {
    if (req.path.startsWith('/dashboard/api/') || req.path === '/dashboard/api') return next();
    res.locals.route = '/dashboard/{page}';
    let html: string;
    try {
      html = await fs.promises.readFile(path.join(dir, 'index.html'), 'utf8');
    } catch {
      throw new ApiError(
        'api_error',
        'dashboard_not_built',
        'The dashboard is not built: run npm run build:dashboard (npm install runs it).',
        undefined,
        503,
      );
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  });
  return router;
}
