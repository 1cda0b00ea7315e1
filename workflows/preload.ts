// Evaluated once per worker before any workflow (src/temporal/worker.ts, PRELOADED_WORKFLOW_MODULES),
// and shared by every workflow the worker runs: zod's modules, as the workflow modules import them
// (the ES module build; a `require('zod')` would preload the CommonJS copy, which no workflow uses).
// Nothing here may keep per-workflow state.
import { z } from 'zod';

export * from 'zod';

// The worker freezes what preloading made. zod writes its default locale and memoizer into its global
// config when the first schema (the first container) is built: build one here, so that happens now.
z.object({ preloaded: z.array(z.string()) }).safeParse({ preloaded: [''] });
