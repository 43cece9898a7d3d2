// @ts-check
// ESLint 9 flat config, run by `npm run lint` (with prettier --check and shellcheck) before the tests.
// A rule switched off or down here carries a one-line reason; see CONTRIBUTING.md#lint-and-format.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Node's globals that the plain JavaScript files use (the `globals` package is not a dependency). */
const NODE_GLOBALS = Object.fromEntries(
  ['require', 'module', 'exports', '__dirname', '__filename', 'process', 'console', 'Buffer', 'URL']
    .concat(['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'performance'])
    .map((name) => [name, 'readonly']),
);

export default defineConfig(
  {
    ignores: ['dist/', 'node_modules/', 'cdk8s.out/', 'manifests/', 'coverage/', '.tmp/'].concat(
      // what jsii, jsii-pacmak and scripts/build-jsii.sh write in jsii/ (its sources, jsii/src, are linted)
      ['jsii/lib/', 'jsii/dist/', 'jsii/.core/', 'jsii/node_modules/'],
    ),
  },
  {
    // TypeScript (lib/, constructs/, bin/, test/, examples/, scripts/): type-checked against tsconfig.test.json,
    // which includes every .ts file of the repository.
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { project: './tsconfig.test.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Same convention as tsc's noUnusedLocals: a destructured name beside `...rest` is how a key is omitted.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A props interface that only extends another (cdk8s-plus style) is a named, documented public type.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // bench/*.js is plain JavaScript without types (read through a typed cast); `import fs = require('fs')` gives
      // jest.spyOn the module object itself.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['/bench/'], allowAsImport: true }],
    },
  },
  {
    // Plain CommonJS run by Node (bin/, bench/, scripts/*.js, jest.config.js): no types to check against, so
    // ESLint's recommended rules only.
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'commonjs', globals: NODE_GLOBALS },
  },
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
  },
);
