import path from 'node:path';
import express from 'express';

/**
 * GET /docs: the API reference, /openapi.json rendered by Swagger UI served from the `swagger-ui-dist`
 * package (no CDN, nothing fetched from outside the service).
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Subscription billing API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

/** Swagger UI's options: the service's own document, operations listed open, no calls to the online validator. */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  validatorUrl: null,
  displayOperationId: true,
});
`;

export function docsRouter(): express.Router {
  const router = express.Router();
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use(
    '/docs/assets',
    express.static(path.dirname(require.resolve('swagger-ui-dist/package.json')), { index: false }),
  );
  return router;
}
