// Bundles client-node's KubeConfig, and only what it needs, into dist/src/vendor/kubeconfig.js (kube/src/api/kubeconfig.ts
// loads it). The operator and a cluster-mode recorder use nothing else of client-node at run time, yet importing the
// package loads all of it: about 2,800 modules (every API and model of Kubernetes), about 1 CPU-second at each start
// and 55 MB more resident memory for every process. One file of the same code loads in about a sixth of that.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { bundleEsm } from '../../scripts/bundle-esm.mjs';

const kube = dirname(dirname(fileURLToPath(import.meta.url)));
await bundleEsm(build, { entry: "export { KubeConfig } from '@kubernetes/client-node';", resolveDir: kube, outfile: join(kube, 'dist', 'src', 'vendor', 'kubeconfig.js') });
