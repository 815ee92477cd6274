import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');
/** A test's size is in its name (jest.config.js): unit, medium (PostgreSQL), end-to-end (HTTP). */
const TEST_SUFFIX = /\.(spec|medium-spec|e2e-spec)\.ts$/;

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Where each source file's name is found (several folders may hold one name). */
function sourceFolders(files: readonly string[]): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const file of files) {
    if (!file.endsWith('.ts') || file.includes('__tests__') || TEST_SUFFIX.test(file)) continue;
    const name = basename(file, '.ts');
    folders.set(name, [...(folders.get(name) ?? []), dirname(file)]);
  }
  return folders;
}

describe('the house: tests sit beside their subject', () => {
  it('a test named after a source file is in that file’s own __tests__ folder', () => {
    const files = filesUnder(SRC);
    const sources = sourceFolders(files);
    const misplaced = files
      .filter((file) => TEST_SUFFIX.test(file) && basename(dirname(file)) === '__tests__')
      .flatMap((file) => {
        const folders = sources.get(basename(file).replace(TEST_SUFFIX, '')) ?? [];
        const home = dirname(dirname(file));
        return folders.length === 0 || folders.includes(home)
          ? []
          : [`${relative(SRC, file)} tests ${folders.map((f) => relative(SRC, f)).join(' or ')}: move it to its __tests__`];
      });
    expect(misplaced).toEqual([]);
  });

  it('no test outside a __tests__ folder in src/', () => {
    const loose = filesUnder(SRC).filter((file) => TEST_SUFFIX.test(file) && basename(dirname(file)) !== '__tests__');
    expect(loose.map((file) => relative(SRC, file))).toEqual([]);
  });
});
