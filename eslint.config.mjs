// @ts-check
// Lint for recall-ledger: typescript-eslint (type-aware), the module line (eslint-plugin-boundaries),
// no import cycles (eslint-plugin-import-x), SQL text only in repositories (a local rule), and
// eslint-config-prettier last so formatting is prettier's alone. `npm run lint` runs this,
// `prettier --check .` and knip.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import boundariesModule from 'eslint-plugin-boundaries';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import house from './eslint-rules/index.mjs';

// The plugin is CommonJS: at run time the default import is the plugin itself; its types describe `.default`.
const boundaries = boundariesModule.default ?? boundariesModule;

/**
 * The module line, lowest first. A feature may import infrastructure and the features before it
 * in this list, never one after it. Some folders do not exist yet (the restructure brings them):
 * they are named here so the line is in place when they arrive.
 */
const FEATURES = ['tenancy', 'tool-results', 'lookup', 'compaction', 'recall-events', 'recall', 'feedback', 'retention', 'mcp'];
/**
 * Libraries every feature may use, and import deeply: they never import a feature. Ordered too,
 * lowest first, each importing only those before it: the settings; what every request records
 * into (its context, logs, metrics, traces); the shared code built on both (errors, text, worker
 * pools, GraphQL's wiring); the database; and the HTTP edge, which puts them together.
 */
const INFRASTRUCTURE = ['config', 'observability', 'common', 'database', 'http'];

const TEST_FILES = ['test/**', '**/__tests__/**', '**/*.spec.ts', '**/*.medium-spec.ts', '**/*.e2e-spec.ts'];

export default defineConfig(
  // clients/typescript/src/generated/ is GraphQL Code Generator's output, kept exact by `npm run codegen:check`.
  globalIgnores(['dist/', 'coverage/', '.data/', 'bench/results/', 'clients/typescript/src/generated/']),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    name: 'house/typescript',
    languageOptions: {
      // One TypeScript program from tsconfig.json (src, test, migrations, bench, eval).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // From the strict set, the one that costs nothing here: calls to APIs their authors deprecated.
      '@typescript-eslint/no-deprecated': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
    // Turned off, each where and why (the blocks below do it):
    // - no-unsafe-assignment/-member-access/-argument/-return/-call, in tests: supertest's body and jest matchers are `any`.
    // - require-await, in tests: test doubles implement promise-returning interfaces without awaiting.
    // - require-await, in migrations/: MikroORM's `async up()`/`down()` only call addSql.
    // - unbound-method, in tests: expect(obj.method) and jest.spyOn take methods unbound on purpose.
    // - no-require-imports, in *.cjs and jest.config.js: CommonJS scripts require() by design.
    // - every type-aware rule, in *.js/*.cjs/*.mjs: those files are outside tsconfig.json's program.
    // Left out of strict-type-checked on purpose (hits on the tree of 2026-12-01 in brackets):
    // - restrict-template-expressions' strict options [363]: numbers in templates are fine (recommended's options are kept).
    // - no-non-null-assertion [162], no-confusing-void-expression [97]: style rewrites, no bug found.
    // - no-unsafe-class-instance-assignment [43]: code-first GraphQL resolvers return plain objects for @ObjectType classes.
    // - no-extraneous-class [11]: Nest modules are decorated empty classes.
    // - no-unnecessary-condition [40]: GraphQL/HTTP inputs are checked at run time beyond what their types promise.
  },
  {
    name: 'house/tests',
    files: TEST_FILES,
    rules: {
      // supertest's response.body and jest's asymmetric matchers are `any`: typing every response in
      // a test adds casts, not safety. Production code keeps these rules.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // Test doubles implement promise-returning interfaces (fetch, adapters) without awaiting.
      '@typescript-eslint/require-await': 'off',
      // `expect(service.method)` and jest.spyOn pass methods unbound on purpose.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    name: 'house/migrations',
    files: ['migrations/**'],
    rules: {
      // MikroORM's Migration declares `up(): Promise<void>`; its generator writes `async up()` with addSql only.
      '@typescript-eslint/require-await': 'off',
      // A migration is a frozen record of the schema: it must not change when src/ does.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)src(/|$)',
              message: 'A migration must not import from src/: copy what it needs, so it stays as it ran.',
            },
          ],
        },
      ],
    },
  },
  {
    name: 'house/javascript',
    files: ['**/*.{js,cjs,mjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    name: 'house/commonjs-scripts',
    files: ['**/*.cjs', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      // CommonJS scripts load their dependencies with require() by design.
      '@typescript-eslint/no-require-imports': 'off',
    },
  },

  // The module line. Only src/ is inside it: test/, bench/, eval/ and scripts/ are harnesses.
  {
    name: 'house/boundaries',
    files: ['src/**/*.ts'],
    plugins: { boundaries, house },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/include': ['src/**/*.ts'],
      'import/resolver': { node: { extensions: ['.ts', '.js', '.json'] } },
      'boundaries/elements': [
        ...INFRASTRUCTURE.map((name) => ({ type: name, pattern: `src/${name}`, partialMatch: false })),
        ...FEATURES.map((name) => ({ type: name, pattern: `src/${name}`, partialMatch: false })),
        // App level: files directly in src/, src/cli/ and src/__tests__/ (tests of the app as a whole).
        { type: 'app', pattern: ['src/cli', 'src/__tests__'], partialMatch: false },
        // `mode: 'full'` is the one way to name single files as an element (`partialMatch: false`
        // gives folder semantics); it is deprecated in v7, hence legacy-warnings off. Re-check on upgrade.
        { type: 'app', pattern: 'src/*.ts', mode: 'full' },
      ],
      'boundaries/legacy-warnings': false,
    },
    rules: {
      // Direction: infrastructure imports only the infrastructure below it; a feature imports
      // infrastructure and the features below it; the app level imports anything. Files in the same
      // folder are not checked.
      'boundaries/dependencies': [
        'error',
        {
          default: 'allow',
          policies: [
            ...INFRASTRUCTURE.map((name, index) => ({
              from: { element: { type: name } },
              disallow: { to: { element: { types: { noneOf: INFRASTRUCTURE.slice(0, index + 1) } } } },
              message:
                `infrastructure out of order: ${name} must not import {{to.type}} ({{dependency.source}}); ` +
                `${index > 0 ? `it may import ${INFRASTRUCTURE.slice(0, index).join(', ')}` : 'it imports no other folder of src/'}. ` +
                `Infrastructure, below every feature: ${INFRASTRUCTURE.join(' < ')}.`,
            })),
            ...FEATURES.map((name, index) => ({
              from: { element: { type: name } },
              disallow: { to: { element: { types: { noneOf: [...INFRASTRUCTURE, ...FEATURES.slice(0, index)] } } } },
              message:
                `upward import: ${name} must not import {{to.type}} ({{dependency.source}}); ` +
                `it may import infrastructure${index > 0 ? ` and ${FEATURES.slice(0, index).join(', ')}` : ''}. Line: ${FEATURES.join(' < ')}.`,
            })),
          ],
        },
      ],
      // Every file in src/ sits on the line: a new top-level folder must be added above first.
      'boundaries/no-unknown-files': 'error',
      // Entry point: from outside feature X only src/X/index.ts (`../X`); inside X anything goes.
      'house/feature-entry-point': [
        'error',
        {
          default: 'allow',
          message: 'deep import into {{to.type}} internals ({{dependency.source}}): import its index, ../{{to.type}}, instead.',
          policies: [
            {
              to: { element: { types: { anyOf: FEATURES } } },
              disallow: { to: { element: { fileInternalPath: '!index.ts' } } },
            },
          ],
        },
      ],
    },
  },

  // No import cycles: in a cycle one module runs before the other has finished, so what it reads
  // from the other at load time (a class for a decorator, a constant) is still undefined. An
  // `import type` (or an import whose every specifier is `type`) is gone at run time, so a cycle it
  // closes is not reported; a plain import used only as a type still counts, since
  // emitDecoratorMetadata can keep it. Imports resolve as TypeScript resolves them (tsconfig.json):
  // `./x` and `../feature` (its index.ts) are followed, packages are not. No maxDepth: the whole
  // graph costs a few seconds of a full lint.
  {
    name: 'house/no-import-cycles',
    files: ['{src,test,bench,eval,scripts}/**/*.{ts,js,cjs,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.cjs', '.mjs'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },

  // SQL text lives in repositories, src/database/run-sql.ts and migrations/ only. An entity's index
  // DDL is exempt: it is the schema the migration generator and the drift check read, never a
  // statement the service runs.
  {
    name: 'house/sql-placement',
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/database/run-sql.ts', 'src/**/*.entity.ts', 'src/**/__tests__/**'],
    plugins: { house },
    rules: { 'house/no-sql-outside-repositories': 'error' },
  },

  prettier,
);
