// Lint rules for every workspace: typescript-eslint's recommended set over the sources and tests, the layer rule and declared dependencies.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { dependenciesPlugin } from './eslint/dependencies.js';
import { layersPlugin } from './eslint/layers.js';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
const LOADED_BY_MODE = 'cluster and database code is loaded with import() where its mode starts (modes/select-mode.ts); import type, or import() there';
const WORKSPACES = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')).workspaces;

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'var/**', '.bench-out/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly',
        clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly',
        AbortController: 'readonly', AbortSignal: 'readonly', setImmediate: 'readonly',
        performance: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { vigil: layersPlugin(ROOT) },
    rules: { 'vigil/layers': 'error' },
  },
  {
    // A standalone recorder carries neither the Kubernetes client (most of its heap once loaded, walked by every full
    // garbage collection) nor the PostgreSQL driver: the code that needs them is loaded by import() where its mode
    // starts (recorder/src/modes/select-mode.ts). A value import from anywhere else would load them for every recorder.
    // @vigil/kube/log-format is its own entry point (the --log-format choice, with pino-pretty only): it loads neither.
    files: ['recorder/src/**/*.ts'],
    ignores: ['recorder/src/cluster/**', 'recorder/src/modes/cluster-mode.ts', 'recorder/src/modes/database-mode.ts', 'recorder/src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          group: ['@kubernetes/*', '@peculiar/*', 'pg', '**/cluster/*', '!**/cluster/cluster-errors.js', '**/db/pool.js'],
          allowTypeImports: true,
          message: LOADED_BY_MODE,
        }, {
          regex: '^@vigil/kube(?!/log-format$)',
          allowTypeImports: true,
          message: LOADED_BY_MODE,
        }],
      }],
    },
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    plugins: { deps: dependenciesPlugin(ROOT, WORKSPACES) },
    rules: { 'deps/declared-dependencies': 'error' },
  },
);
