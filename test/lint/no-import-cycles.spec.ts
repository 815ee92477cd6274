import { type LintResults, lintPlanted, plant, probe, ruleErrors, unplant, withoutTypes } from './lint-probe';

// No import cycles: modules that import each other are planted in src/ (lint-probe.ts says how) and
// import-x/no-cycle must report every file of the cycle; a one-way import and a cycle closed only by
// `import type` (gone at run time) must pass. The rule reads imports, not types, so the probe is
// linted without the type-aware rules.
const dir = `src/common/${probe}-cycles`;

/** Files this test writes, relative to the root; removed afterwards with their folder. */
const files = new Map<string, string>([
  // two files: pair-a -> pair-b -> pair-a
  [`${dir}/pair-a.ts`, "import { pairB } from './pair-b';\n\nexport const pairA = (): number => pairB() + 1;\n"],
  [`${dir}/pair-b.ts`, "import { pairA } from './pair-a';\n\nexport const pairB = (): number => (pairA.length > 0 ? 1 : 0);\n"],
  // three files, one of them a folder's index.ts reached as `./ring`: ring/index.ts -> ring/inner.ts -> ring-user.ts -> ring/index.ts
  [`${dir}/ring/index.ts`, "export { inner } from './inner';\n"],
  [`${dir}/ring/inner.ts`, "import { ringUser } from '../ring-user';\n\nexport const inner = (): string => ringUser.name;\n"],
  [`${dir}/ring-user.ts`, "import { inner } from './ring';\n\nexport const ringUser = { name: 'user', inner };\n"],
  // one way: line-a -> line-b
  [`${dir}/line-a.ts`, "import { lineB } from './line-b';\n\nexport const lineA = lineB + 1;\n"],
  [`${dir}/line-b.ts`, 'export const lineB = 1;\n'],
  // a value import one way, `import type` back
  [
    `${dir}/typed-a.ts`,
    "import { typedB } from './typed-b';\n\nexport interface TypedA {\n  b: number;\n}\n\nexport const typedA: TypedA = { b: typedB };\n",
  ],
  [
    `${dir}/typed-b.ts`,
    "import type { TypedA } from './typed-a';\n\nexport const typedB = 2;\n\nexport const readTypedA = (a: TypedA): number => a.b;\n",
  ],
]);

let results: LintResults;

beforeAll(async () => {
  plant(files);
  results = await lintPlanted([...files.keys()], withoutTypes([`${dir}/**`]));
}, 60_000);

afterAll(() => unplant(files.keys(), [dir]));

/** The no-cycle messages of one scratch file (name relative to the probe folder), as `rule: message`. */
function cycleErrors(name: string): string[] {
  return ruleErrors(results, `${dir}/${name}`, ['import-x/no-cycle']);
}

describe('R-house: no import cycles (import-x/no-cycle)', () => {
  it('R-house: two files importing each other (a -> b -> a) is a cycle error in both', () => {
    expect(cycleErrors('pair-a.ts')).toEqual(['import-x/no-cycle: Dependency cycle detected']);
    expect(cycleErrors('pair-b.ts')).toEqual(['import-x/no-cycle: Dependency cycle detected']);
  });

  it("R-house: a three-file cycle through a folder's index.ts (a -> b -> c -> a) is a cycle error in all three", () => {
    expect(cycleErrors('ring/index.ts')).toEqual(['import-x/no-cycle: Dependency cycle via "../ring-user:1"']);
    expect(cycleErrors('ring/inner.ts')).toEqual(['import-x/no-cycle: Dependency cycle via "./ring:1"']);
    expect(cycleErrors('ring-user.ts')).toEqual(['import-x/no-cycle: Dependency cycle via "./inner:1"']);
  });

  it('R-house: a one-way import (a -> b) is allowed', () => {
    expect(cycleErrors('line-a.ts')).toEqual([]);
    expect(cycleErrors('line-b.ts')).toEqual([]);
  });

  it('R-house: a cycle closed only by `import type` is allowed: it is gone at run time', () => {
    expect(cycleErrors('typed-a.ts')).toEqual([]);
    expect(cycleErrors('typed-b.ts')).toEqual([]);
  });
});
