import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/*
 * Issue 55: the words the README's vocabulary gives each module hold in its code. Lookup reads one
 * stored result back by mem id; recall (src/recall/) reads across results; "the ledger" is no
 * module. The public names GraphQL and MCP published before the words were told apart stay
 * (`recallToolResult`, `recall_tool_result`, the `RecallFormat` enum) and are passed over.
 */
const SRC = join(__dirname, '..', '..', 'src');

const PUBLISHED = /recallToolResult|recall_tool_result|RecallFormat|recall-ledger|recall_ledger|this answer \(RECALL_ANSWER_MAX_TOKENS\)/g;

/** What each folder may not say, outside its published names and the project's own name. */
const RETIRED: { folders: string[]; word: RegExp; why: string }[] = [
  { folders: ['lookup'], word: /recall/i, why: 'lookup is not recall: say lookup' },
  {
    folders: ['lookup', 'compaction', 'tool-results', 'mcp', 'config'],
    word: /\bledger\b|Ledger[A-Z]|ledger\(/,
    why: 'no module is the ledger: name lookup or compaction',
  },
];

/** Settings renamed: only the config's alias table and schema may name them. */
const RENAMED_SETTINGS = /RECALL_(MAX_RETURN_CHARS|ANSWER_MAX_TOKENS|TEXT_CACHE_CHARS)/;

function sourcesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.parentPath.includes('__tests__'))
    .map((entry) => join(entry.parentPath, entry.name));
}

function violations(files: string[], word: RegExp, why: string): string[] {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        word.test(line.replace(PUBLISHED, '')) ? [`${relative(SRC, file)}:${index + 1}: ${why}: ${line.trim()}`] : [],
      ),
  );
}

describe('the house: the vocabulary holds in the code', () => {
  it.each(RETIRED)('$why', ({ folders, word, why }) => {
    const files = folders.flatMap((folder) => sourcesUnder(join(SRC, folder)));
    expect(violations(files, word, why)).toEqual([]);
  });

  it('the renamed lookup settings are named only by the configuration (their deprecated aliases) and the published schema', () => {
    const files = sourcesUnder(SRC).filter((file) => !relative(SRC, file).startsWith('config/'));
    const allowed = ['lookup/lookup.resolver.ts'];
    const found = violations(files, RENAMED_SETTINGS, 'say LOOKUP_…').filter(
      (line) => !allowed.some((file) => line.startsWith(`${file}:`)),
    );
    expect(found).toEqual([]);
  });
});
