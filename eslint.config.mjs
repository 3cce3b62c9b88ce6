import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import noCommonjsShadow from './scripts/eslint/no-commonjs-shadow.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/testdata/**', '**/*.wasm', '**/wasm_exec.js'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', setImmediate: 'readonly', queueMicrotask: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-throw-literal': 'error',
    },
  },
  {
    // What ships is CommonJS from tsc: a local `exports` or `require` breaks dist only.
    files: ['**/*.ts'],
    plugins: { flotilla: { rules: { 'no-commonjs-shadow': noCommonjsShadow } } },
    rules: { 'flotilla/no-commonjs-shadow': 'error' },
  },
  {
    // Tool configuration files such as jest.config.js are CommonJS.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Libraries are plain TypeScript: NestJS stops at apps/, and a lib never imports an app.
    files: ['libs/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@nestjs/*'], message: 'libs/ must not depend on NestJS; wire lib classes in apps/.' },
            { group: ['**/apps/**', 'apps/*'], message: 'libs/ must not import from apps/.' },
          ],
        },
      ],
    },
  },
  {
    // The push scheduler and the agent path share only neutral modules (rollout/, runs/, notify/):
    // neither imports the other, and conditions are built in libs/engine alone.
    files: ['apps/hub/src/scheduler/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/agents/*', '**/agents'], message: 'scheduler/ runs push Targets only: it must not import from agents/.' }],
          paths: [{ name: '@flotilla/engine', importNames: ['condition'], message: 'conditions are built in libs/engine: call its target-states functions.' }],
        },
      ],
    },
  },
  {
    files: ['apps/hub/src/agents/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/scheduler/*', '**/scheduler/**'], message: 'agents/ must not import from scheduler/: shared pieces live in rollout/, runs/ or notify/.' }],
          paths: [{ name: '@flotilla/engine', importNames: ['condition'], message: 'conditions are built in libs/engine: call its target-states functions.' }],
        },
      ],
    },
  },
  {
    files: ['apps/hub/src/**/*.ts'],
    ignores: ['apps/hub/src/scheduler/**', 'apps/hub/src/agents/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@flotilla/engine', importNames: ['condition'], message: 'conditions are built in libs/engine: call its target-states functions.' }] }],
    },
  },
);
