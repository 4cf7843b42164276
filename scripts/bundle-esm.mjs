// One ES module file for Node.js from an entry's imports, with everything it imports inlined (esbuild): what the kube and
// testing workspaces' builds make of @kubernetes/client-node (kube/scripts/bundle-kubeconfig.mjs,
// testing/scripts/bundle-client-node.mjs), because importing the package itself loads about 2,800 modules.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `outfile`: the code of `entry` (module source, resolved from `resolveDir`) and all it imports. `build` is
 * esbuild's, from the calling workspace (each declares esbuild among its devDependencies).
 */
export async function bundleEsm(build, { entry, resolveDir, outfile }) {
  await mkdir(dirname(outfile), { recursive: true });
  await build({
    stdin: { contents: entry, resolveDir, loader: 'js', sourcefile: 'bundle-entry.js' },
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
}
