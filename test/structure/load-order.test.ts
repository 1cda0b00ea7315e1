import { execFileSync } from 'node:child_process';
import path from 'node:path';

/**
 * Every backend file loads when it is the first one a process requires (docs/architecture.md, "Load order"): a
 * test file, a command or a worker may start from any of them. scripts/load-order.ts loads each in turn in one
 * process, the source's modules forgotten between two.
 */
const root = path.resolve(__dirname, '../..');

test('every backend file loads first', () => {
  const output = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/load-order.ts'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  const { files, failures } = JSON.parse(output.trim().split('\n').pop() ?? '{}') as {
    files: number;
    failures: { file: string; error: string }[];
  };
  expect(files).toBeGreaterThan(300);
  expect(failures).toEqual([]);
}, 600_000);
