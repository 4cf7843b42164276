// Test support for the repository's own lint rules: lint a piece of code as if it were a file of the repository,
// and hold a rule to cases it must refuse (one message each, matching) and cases it must let pass.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The messages of `ruleId` for `code` linted as the repository file `filePath`. */
export async function ruleMessages(ruleId: string, filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === ruleId).map((m) => m.message);
}

/** Each [file, code, message] case gets exactly one message of the rule, matching. */
export async function assertRefused(ruleId: string, cases: Array<[string, string, RegExp]>): Promise<void> {
  for (const [file, code, expected] of cases) {
    const errors = await ruleMessages(ruleId, file, code);
    assert.equal(errors.length, 1, `${file}: ${code.split('\n')[0]} → ${JSON.stringify(errors)}`);
    assert.match(errors[0] as string, expected);
  }
}

/** Each [file, code] case gets no message of the rule. */
export async function assertAllowed(ruleId: string, cases: Array<[string, string]>): Promise<void> {
  for (const [file, code] of cases) assert.deepEqual(await ruleMessages(ruleId, file, code), [], `${file}: ${code}`);
}
