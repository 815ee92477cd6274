import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * The typed client's documents and types, from the committed `schema.gql` and the operations in
 * `operations/`. `npm run codegen` writes them to `src/generated/`; `npm run codegen:check`
 * fails when the committed output is stale. Paths are from the repository root, where the
 * scripts run.
 */
const config: CodegenConfig = {
  schema: 'schema.gql',
  documents: 'clients/typescript/operations/**/*.graphql',
  generates: {
    'clients/typescript/src/generated/': {
      preset: 'client',
      // Callers import the named documents (`MeDocument`, …): no fragment masking, no index file.
      presetConfig: { fragmentMasking: false, skipIndexFile: true },
      config: {
        // Documents are typed strings, so a browser bundle never needs the `graphql` package.
        documentMode: 'string',
        // Enums as unions of string literals: nothing emitted at run time, and a literal such as
        // 'SUMMARY' from a form or a test is assignable.
        enumType: 'string-literal',
        useTypeImports: true,
        // Every custom scalar must be mapped: a new one fails codegen instead of becoming `any`.
        strictScalars: true,
        scalars: {
          ID: { input: 'string', output: 'string' },
          DateTime: { input: 'string', output: 'string' },
          JSON: { input: 'unknown', output: 'unknown' },
        },
      },
    },
  },
  // The committed output is prettier's, so `prettier --check .` passes and the stale check is exact.
  hooks: { afterAllFileWrite: ['prettier --write'] },
};

export default config;
