import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PRELOADED_WORKFLOW_MODULES, workflowsPath } from './worker';

const quiet = { log() {}, info() {}, warn() {}, error: console.error, debug() {}, trace() {} };

/** Bundles the workflows once into `file`, for workers started with WORKFLOW_BUNDLE (tests, the Docker image). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const bundle = await bundleWorkflowCode({ workflowsPath, logger: quiet, preloadModules: PRELOADED_WORKFLOW_MODULES });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bundle.code);
}
