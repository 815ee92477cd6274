import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { type LintResults, lintPlanted, plant, probe, root, ruleErrors, unplant, withoutTypes } from './lint-probe';

// The module line bites: scratch files planted in the real tree and linted with the project's own
// config (lint-probe.ts says how). The migration probe is linted from text, never written: a
// migrator running in a parallel test would pick up any .ts in migrations/.

/** Files this test writes, relative to the root; removed afterwards. Index files only when absent. */
const files = new Map<string, string>([
  [`src/tenancy/${probe}-internal.ts`, 'export const tenancyInternal = 1;\n'],
  [`src/feedback/${probe}-internal.ts`, 'export const feedbackInternal = 2;\n'],
  // upward: the lowest feature imports a higher one (through its index, so only the direction is wrong)
  [`src/tenancy/${probe}-upward.ts`, "import * as feedback from '../feedback';\n\nexport const upward = feedback;\n"],
  // deep: a higher feature reaches past a lower feature's index into its internals
  [
    `src/feedback/${probe}-deep.ts`,
    `import { tenancyInternal } from '../tenancy/${probe}-internal';\n\nexport const deep = tenancyInternal;\n`,
  ],
  // allowed: a higher feature imports a lower feature's index
  [`src/feedback/${probe}-allowed.ts`, "import * as tenancy from '../tenancy';\n\nexport const allowed = tenancy;\n"],
  // allowed: inside a feature any relative import goes
  [
    `src/feedback/${probe}-inside.ts`,
    `import { feedbackInternal } from './${probe}-internal';\n\nexport const inside = feedbackInternal;\n`,
  ],
  // infrastructure imports a feature
  [`src/common/${probe}-infra.ts`, "import * as tenancy from '../tenancy';\n\nexport const infra = tenancy;\n"],
  // infrastructure out of order: config, the lowest, imports the HTTP edge
  [`src/config/${probe}-infra-up.ts`, "import * as edge from '../http/edge-errors';\n\nexport const infraUp = edge;\n"],
  // infrastructure in order: the database imports shared code below it
  [`src/database/${probe}-infra-down.ts`, "import * as errors from '../common/errors/app-error';\n\nexport const infraDown = errors;\n"],
  // a top-level folder that is not on the module line
  [`src/${probe}/orphan.ts`, 'export const orphan = true;\n'],
]);
for (const feature of ['tenancy', 'feedback']) {
  const index = `src/${feature}/index.ts`;
  if (!existsSync(join(root, index))) files.set(index, `export const ${feature}Index = true;\n`);
}

const BOUNDARY_RULES = ['boundaries/dependencies', 'house/feature-entry-point', 'boundaries/no-unknown-files', 'no-restricted-imports'];
let results: LintResults;

beforeAll(async () => {
  plant(files);
  results = await lintPlanted([...files.keys()].filter((file) => file.includes(probe)));

  // Not on disk, so not in the TypeScript program: the same config without the type-aware rules.
  const untyped = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: withoutTypes(['migrations/**']) });
  const migration = `migrations/${probe}.ts`;
  const migrationText = "import { loadConfig } from '../src/config/load-config';\n\nexport const migration = loadConfig;\n";
  const [migrationResult] = await untyped.lintText(migrationText, { filePath: join(root, migration) });
  results.set(migration, migrationResult.messages);
}, 60_000);

afterAll(() => unplant(files.keys(), [`src/${probe}`]));

/** The boundary messages of one scratch file, as `rule: message`. */
function boundaryErrors(name: string): string[] {
  return ruleErrors(results, name, BOUNDARY_RULES);
}

describe('R-house: import boundaries', () => {
  it('R-house: a lower feature importing a higher one (tenancy -> ../feedback) is an upward-import error', () => {
    const errors = boundaryErrors(`src/tenancy/${probe}-upward.ts`);
    expect(errors).toEqual([
      expect.stringMatching(/^boundaries\/dependencies: upward import: tenancy must not import feedback \(\.\.\/feedback\)/),
    ]);
  });

  it("R-house: a deep import into another feature's internals is an error, even downward", () => {
    const errors = boundaryErrors(`src/feedback/${probe}-deep.ts`);
    expect(errors).toEqual([expect.stringMatching(/^house\/feature-entry-point: deep import into tenancy internals/)]);
  });

  it('R-house: infrastructure importing a feature is an error', () => {
    const errors = boundaryErrors(`src/common/${probe}-infra.ts`);
    expect(errors).toEqual([
      expect.stringMatching(/^boundaries\/dependencies: infrastructure out of order: common must not import tenancy/),
    ]);
  });

  it('R-house: infrastructure importing infrastructure above it (config -> http) is an error; below it, allowed', () => {
    expect(boundaryErrors(`src/config/${probe}-infra-up.ts`)).toEqual([
      expect.stringMatching(
        /^boundaries\/dependencies: infrastructure out of order: config must not import http .*config < observability < common < database < http/,
      ),
    ]);
    expect(boundaryErrors(`src/database/${probe}-infra-down.ts`)).toEqual([]);
  });

  it('R-house: a migration importing src/ is an error', () => {
    const errors = boundaryErrors(`migrations/${probe}.ts`);
    expect(errors).toEqual([expect.stringMatching(/^no-restricted-imports: .*A migration must not import from src\//)]);
  });

  it('R-house: a file in a src/ folder that is not on the module line is an error', () => {
    expect(boundaryErrors(`src/${probe}/orphan.ts`)).toEqual([expect.stringMatching(/^boundaries\/no-unknown-files: /)]);
  });

  it("R-house: a feature importing a lower feature's index, and any import inside a feature, are allowed", () => {
    expect(boundaryErrors(`src/feedback/${probe}-allowed.ts`)).toEqual([]);
    expect(boundaryErrors(`src/feedback/${probe}-inside.ts`)).toEqual([]);
  });
});
