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

/**
 * Swagger UI's options: the service's own document, its tags closed with a filter box, no calls to the online
 * validator. Tags start closed because Swagger UI (5.35 and 5.36, measured) stops drawing a document of more
 * than about 124 operations listed open: the tags after the first few never appear, with no error.
 */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'none',
  filter: true,
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
