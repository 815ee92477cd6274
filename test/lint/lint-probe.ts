import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import config from '../../eslint.config.mjs';

// Planting code the lint must refuse: scratch files written into the real tree (type-aware linting
// needs them on disk, inside tsconfig.json's program, and rules that follow imports read the
// imported files from disk) and linted with the project's own config through ESLint's Node API.
// The config is imported rather than looked up because jest's module registry cannot run the
// dynamic import() ESLint uses to load eslint.config.mjs.

export const root = join(__dirname, '..', '..');

/** A name no real file has, for this test process's scratch files. */
export const probe = `lint-probe-${process.pid}`;

/** Lint results by file path relative to the root. */
export type LintResults = Map<string, Linter.LintMessage[]>;

/** Writes each file (path relative to the root => text), creating its folders. */
export function plant(files: Map<string, string>): void {
  for (const [file, text] of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
}

/** Removes planted files, then the given folders (relative to the root) with all they hold. */
export function unplant(files: Iterable<string>, folders: string[] = []): void {
  for (const file of files) rmSync(join(root, file), { force: true });
  for (const folder of folders) rmSync(join(root, folder), { recursive: true, force: true });
}

/**
 * The project's config with the type-aware rules off for the files matching `patterns`: for code
 * outside tsconfig.json's program, or for rules that read no types (no TypeScript program is built,
 * which is most of the time a type-aware lint takes).
 */
export function withoutTypes(patterns: string[]): Linter.Config[] {
  return [...config, { files: patterns, ...tseslint.configs.disableTypeChecked }];
}

/** Lints files on disk (paths relative to the root) with the project's config, or the one given. */
export async function lintPlanted(files: string[], overrideConfig: Linter.Config[] = config): Promise<LintResults> {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig });
  const linted = await eslint.lintFiles(files);
  return new Map(linted.map((result) => [result.filePath.slice(root.length + 1), result.messages]));
}

/** The messages of the given rules on one linted file, as `rule: message`; a parse failure throws. */
export function ruleErrors(results: LintResults, name: string, rules: string[]): string[] {
  const messages = results.get(name);
  if (!messages) throw new Error(`${name} was not linted`);
  const fatal = messages.filter((m) => m.fatal);
  if (fatal.length > 0) throw new Error(`${name}: ${fatal.map((m) => m.message).join('; ')}`);
  return messages.filter((m) => m.ruleId && rules.includes(m.ruleId)).map((m) => `${m.ruleId}: ${m.message}`);
}
