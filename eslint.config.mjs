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
);
