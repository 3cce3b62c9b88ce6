const { existsSync } = require('node:fs');
const { join } = require('node:path');

// NestJS 12 and some of its dependencies ship ESM only; Jest on Node 20 cannot
// load them natively, so @swc/jest transforms them to CommonJS as well.
const esmPackages = ['@nestjs', 'file-type', 'strtok3', 'token-types', '@tokenizer', 'uint8array-extras', '@borewit', 'openid-client', 'oauth4webapi', 'jose'];

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['apps', 'libs', 'test'].filter((dir) => existsSync(join(__dirname, dir))).map((dir) => `<rootDir>/${dir}`),
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleNameMapper: {
    '^@flotilla/(.*)$': '<rootDir>/libs/$1/src',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  globalSetup: '<rootDir>/test/harness/jest-global-setup.ts',
  globalTeardown: '<rootDir>/test/harness/jest-global-teardown.ts',
  testTimeout: 60000,
};
