import path from 'node:path';
import { projectRoot } from '../config';
import { writeWorkflowBundle } from '../temporal';

/** `npm run build:workflows [file]`: the workflow bundle a worker loads with WORKFLOW_BUNDLE=<file> (default dist/workflow-bundle.js). */
async function main(): Promise<void> {
  const file = path.resolve(process.argv[2] ?? path.join(projectRoot, 'dist', 'workflow-bundle.js'));
  await writeWorkflowBundle(file);
  console.log(`Workflow bundle written to ${file}; start workers with WORKFLOW_BUNDLE=${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
