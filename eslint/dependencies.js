// Lint rule `vigil/declared-dependencies`: every package a file imports is declared in its workspace's package.json
// (run-time code: `dependencies`; tests, tools and type-only imports: `devDependencies` too), so nothing works only
// because npm happened to hoist another workspace's dependency.
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const BUILTINS = new Set(builtinModules);

function packageName(spec) {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The declared packages of a folder's package.json, read once. */
function declarations(root) {
  const cache = new Map();
  return (folder) => {
    if (!cache.has(folder)) {
      const pkg = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
      cache.set(folder, {
        name: pkg.name,
        runtime: new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]),
        dev: new Set(Object.keys(pkg.devDependencies ?? {})),
      });
    }
    return cache.get(folder);
  };
}

/** The plugin; `root` is the repository root, `workspaces` the folders with a package.json of their own (the others are not checked). */
export function dependenciesPlugin(root, workspaces) {
  const declared = declarations(root);
  return {
    rules: {
      'declared-dependencies': {
        meta: { type: 'problem', docs: { description: 'imported packages are declared in the workspace\'s package.json' }, schema: [] },
        create(context) {
          const rel = relative(root, context.filename).split(sep);
          // Only the workspaces: bench/ and kind-test/ are scripts run from a full checkout, not packages.
          if (!workspaces.includes(rel[0])) return {};
          const folder = rel[0];
          const runtimeCode = rel[1] === 'src';
          const visit = (node) => {
            const spec = node.source?.type === 'Literal' ? node.source.value : undefined;
            if (typeof spec !== 'string' || spec.startsWith('.') || spec.startsWith('node:') || BUILTINS.has(spec)) return;
            const pkg = packageName(spec);
            const { name, runtime, dev } = declared(folder);
            if (pkg === name || runtime.has(pkg)) return;
            const typeOnly = node.importKind === 'type' || node.exportKind === 'type';
            if (dev.has(pkg) && (!runtimeCode || typeOnly)) return;
            const where = `${folder}/package.json`;
            context.report({
              node,
              message: dev.has(pkg)
                ? `${pkg} is imported at run time but ${where} lists it only in devDependencies`
                : `${pkg} is imported but not declared in ${where} (npm install -w ${folder} ${pkg})`,
            });
          };
          return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit, ImportExpression: visit };
        },
      },
    },
  };
}
