// Bundles client-node's KubeConfig, and only what it needs, into dist/src/vendor/kubeconfig.js (kube/src/api/kubeconfig.ts
// loads it). The operator and a cluster-mode recorder use nothing else of client-node at run time, yet importing the
// package loads all of it: about 2,800 modules (every API and model of Kubernetes), about 1 CPU-second at each start
// and 55 MB more resident memory for every process. One file of the same code loads in about a sixth of that.
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const kube = dirname(dirname(fileURLToPath(import.meta.url)));
const outfile = join(kube, 'dist', 'src', 'vendor', 'kubeconfig.js');

await mkdir(dirname(outfile), { recursive: true });
await build({
  stdin: { contents: "export { KubeConfig } from '@kubernetes/client-node';", resolveDir: kube, loader: 'js', sourcefile: 'kubeconfig-entry.js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // The CommonJS modules inside (node-fetch and others) require Node's own modules: an ES module has no require.
  banner: { js: "import { createRequire as vendorCreateRequire } from 'node:module'; const require = vendorCreateRequire(import.meta.url);" },
  legalComments: 'eof',
  outfile,
  logLevel: 'warning',
});
