import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

// Schemas call `.openapi(...)` as they are defined, so the extension must be in place before any
// schema module loads, whoever imports it first (the API, the worker, a CLI): every schema module
// imports validation.ts, which imports this.
extendZodWithOpenApi(z);
