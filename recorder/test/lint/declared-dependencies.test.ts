// The dependency rule bites: a workspace imports only what its package.json declares (run-time code: dependencies).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

async function dependencyErrors(filePath: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'deps/declared-dependencies').map((m) => m.message);
}

test('an import the workspace does not declare is an error naming the package.json to fix', async () => {
  const refused: Array<[string, string, RegExp]> = [
    ['kube/src/x.ts', "import leftPad from 'left-pad';\nexport const a = leftPad;\n", /left-pad is imported but not declared in kube\/package.json/],
    ['operator/test/x.test.ts', "import { chromium } from 'playwright-core';\nexport const a = chromium;\n", /playwright-core is imported but not declared in operator\/package.json/],
    // Declared for the tests only, imported by the running recorder: it works only by hoisting.
    ['recorder/src/cluster/x.ts', "import { KubeConfig } from '@kubernetes/client-node';\nexport const a = KubeConfig;\n", /only in devDependencies/],
    ['recorder/src/cluster/x.ts', "export const load = () => import('@kubernetes/client-node');\n", /only in devDependencies/],
  ];
  for (const [file, code, expected] of refused) {
    const errors = await dependencyErrors(file, code);
    assert.equal(errors.length, 1, `${file}: ${code.split('\n')[0]} → ${JSON.stringify(errors)}`);
    assert.match(errors[0] as string, expected);
  }
});

test('declared packages, built-ins, type-only imports of dev dependencies and files outside the workspaces pass', async () => {
  const allowed: Array<[string, string]> = [
    ['kube/src/x.ts', "import { KubeConfig } from '@kubernetes/client-node';\nimport { pino } from 'pino';\nimport { GROUP } from '@vigil/crds';\nexport const a = [KubeConfig, pino, GROUP];\n"],
    ['recorder/src/cluster/x.ts', "import type { KubeConfig } from '@kubernetes/client-node';\nimport { readFileSync } from 'node:fs';\nimport path from 'path';\nexport type A = KubeConfig;\nexport const b = [readFileSync, path];\n"],
    ['recorder/test/x.test.ts', "import { KubeConfig } from '@kubernetes/client-node';\nimport { a } from '@vigil/testing/net';\nexport const b = [KubeConfig, a];\n"],
    ['operator/src/x.ts', "import { Informer } from '@vigil/kube';\nimport { Registry } from 'prom-client';\nexport const a = [Informer, Registry];\n"],
    ['bench/x.js', "import { a } from '@vigil/testing/net';\nexport const b = a;\n"],
  ];
  for (const [file, code] of allowed) assert.deepEqual(await dependencyErrors(file, code), [], `${file}: ${code}`);
});
