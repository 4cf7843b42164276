// The dependency rule bites: a workspace imports only what its package.json declares (run-time code: dependencies).
import { test } from 'node:test';
import { assertAllowed, assertRefused } from './lint-cases.js';

const RULE = 'deps/declared-dependencies';

test('an import the workspace does not declare is an error naming the package.json to fix', async () => {
  const refused: Array<[string, string, RegExp]> = [
    ['kube/src/x.ts', "import leftPad from 'left-pad';\nexport const a = leftPad;\n", /left-pad is imported but not declared in kube\/package.json/],
    ['operator/test/x.test.ts', "import { chromium } from 'playwright-core';\nexport const a = chromium;\n", /playwright-core is imported but not declared in operator\/package.json/],
    // Declared for the tests only, imported by the running recorder: it works only by hoisting.
    ['recorder/src/cluster/x.ts', "import { KubeConfig } from '@kubernetes/client-node';\nexport const a = KubeConfig;\n", /only in devDependencies/],
    ['recorder/src/cluster/x.ts', "export const load = () => import('@kubernetes/client-node');\n", /only in devDependencies/],
  ];
  await assertRefused(RULE, refused);
});

test('declared packages, built-ins, type-only imports of dev dependencies and files outside the workspaces pass', async () => {
  const allowed: Array<[string, string]> = [
    ['kube/src/x.ts', "import { KubeConfig } from '@kubernetes/client-node';\nimport { pino } from 'pino';\nimport { GROUP } from '@vigil/crds';\nexport const a = [KubeConfig, pino, GROUP];\n"],
    ['recorder/src/cluster/x.ts', "import type { KubeConfig } from '@kubernetes/client-node';\nimport { readFileSync } from 'node:fs';\nimport path from 'path';\nexport type A = KubeConfig;\nexport const b = [readFileSync, path];\n"],
    ['recorder/test/x.test.ts', "import { KubeConfig } from '@kubernetes/client-node';\nimport { a } from '@vigil/testing/net';\nexport const b = [KubeConfig, a];\n"],
    ['operator/src/x.ts', "import { Informer } from '@vigil/kube';\nimport { Registry } from 'prom-client';\nexport const a = [Informer, Registry];\n"],
    ['bench/x.js', "import { a } from '@vigil/testing/net';\nexport const b = a;\n"],
  ];
  await assertAllowed(RULE, allowed);
});
