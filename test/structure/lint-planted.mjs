// Lints planted code with the repository's ESLint configuration, through ESLint's API: reads
// [{ filePath, code }] as JSON on stdin and writes, for each, [{ ruleId, message }] as JSON on stdout. It runs
// in a process of its own because ESLint loads eslint.config.mjs with import(), which Jest's sandbox refuses.
import { ESLint } from 'eslint';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const eslint = new ESLint();
const answers = [];
for (const { filePath, code } of JSON.parse(input)) {
  const [result] = await eslint.lintText(code, { filePath });
  answers.push(result.messages.map(({ ruleId, message }) => ({ ruleId, message })));
}
process.stdout.write(JSON.stringify(answers));
