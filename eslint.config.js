// Lint rules for every workspace: typescript-eslint's recommended set over the sources and tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  // The operator and the recorder talk only through the Kubernetes API and HTTP; both import @vigil/crds.
  {
    files: ['operator/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@vigil/recorder', '@vigil/recorder/*', '**/recorder/src/**'], message: 'the operator never imports the recorder' }] }] },
  },
  {
    files: ['recorder/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['@vigil/operator', '@vigil/operator/*', '**/operator/src/**'], message: 'the recorder never imports the operator' }] }] },
  },
);
