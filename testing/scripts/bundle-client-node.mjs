// Bundles all of @kubernetes/client-node into dist/src/vendor/client-node.js, which the test support loads
// (src/kube/client-node.ts). Importing the package loads about 2,800 modules: about 1 CPU-second in every test process
// that starts a control plane (52 of the suite's 232 test files), against about 0.45 for the same code as one file.
// The product does not use this bundle: the operator and the recorders load client-node's KubeConfig alone
// (kube/scripts/bundle-kubeconfig.mjs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleEsm } from '../../scripts/bundle-esm.mjs';

const testing = dirname(dirname(fileURLToPath(import.meta.url)));
await bundleEsm(build, { entry: "export * from '@kubernetes/client-node';", resolveDir: testing, outfile: join(testing, 'dist', 'src', 'vendor', 'client-node.js') });
