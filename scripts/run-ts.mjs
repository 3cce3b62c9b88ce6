// Runs one TypeScript file without a build (benchmarks): transpiles .ts with
// @swc/core as CommonJS on load and resolves `@flotilla/<lib>` to libs/<lib>/src.
import { transformSync } from '@swc/core';
import Module, { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
Module._extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request.startsWith('@flotilla/')) {
    const [, name, ...sub] = request.split('/');
    request = join(root, 'libs', name, 'src', ...sub);
  }
  return resolveFilename.call(this, request, ...rest);
};
const file = process.argv[2];
if (!file) throw new Error('usage: node scripts/run-ts.mjs <file.ts> [args]');
createRequire(import.meta.url)(resolve(file));
