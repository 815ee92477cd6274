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

/** Text a model or a GraphQL client reads, where the published argument names are quoted. */
const STRING_LITERALS = /'(?:[^'\\]|\\.)*'|`[^`]*`|"(?:[^"\\]|\\.)*"/g;

/**
 * Lookup's `query` argument is a substring: outside json-path/ (where RFC 9535 calls a JSONPath a
 * query) lookup says "query" only as the published argument — `args.query`, its declaration, or
 * quoted in a text.
 */
function lookupQueryViolations(): string[] {
  const files = sourcesUnder(join(SRC, 'lookup')).filter((file) => !file.includes(`${join('lookup', 'json-path')}`));
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => {
        const said = line.replace(STRING_LITERALS, '').replace(/args\.query|\bquery\??:/g, '');
        return /\bquery\b|\bQUERY_|[a-z]Query\b/.test(said) ? [`${relative(SRC, file)}:${index + 1}: say substring: ${line.trim()}`] : [];
      }),
  );
}

/** Identifiers and file names that said another word, now gone from all of src/. */
const RETIRED_IDENTIFIERS: { word: RegExp; why: string }[] = [
  {
    word: /\b(TokenActor|ActorOrToken|tokenActor)\b/,
    why: 'an actor is the request principal: PendingActor before its statement reads it',
  },
  { word: /\bactor: User\b/, why: "a feedback event's actor_id is its submitter" },
  { word: /\bToolRules\b|\btoolRules\b/, why: 'a rule is a summary rule: compaction has per-tool settings' },
];

/** A user is a user: "profile" only in the spec's column and the published GraphQL field (profile_id, profileId). */
function profileViolations(): string[] {
  const files = sourcesUnder(SRC).filter((file) => !file.includes(`${join('', 'models', '')}`));
  return violations(files, /\bprofile\b/i, 'say user').filter((line) => !/CPU profile/.test(line));
}

/** "Policy" alone is a team compaction policy; PostgreSQL's are "row-level security policies" in full. */
function unqualifiedPolicies(): string[] {
  const QUALIFIED = /(row-level security|compaction|security-|referrer-|opener-)\s*$/i;
  return sourcesUnder(SRC)
    .filter((file) => !relative(SRC, file).startsWith('compaction'))
    .flatMap((file) => {
      const text = readFileSync(file, 'utf8').replace(/\n\s*(\*|\/\/)?\s*/g, ' ');
      return [...text.matchAll(/\b(\w*)polic(y|ies)/gi)]
        .filter((match) => !/compaction/i.test(match[1]) && !QUALIFIED.test(text.slice(Math.max(0, match.index - 40), match.index)))
        .map((match) => `${relative(SRC, file)}: qualify "${text.slice(Math.max(0, match.index - 40), match.index + 12)}"`);
    });
}

describe('the house: the vocabulary holds in the code', () => {
  it.each(RETIRED)('$why', ({ folders, word, why }) => {
    const files = folders.flatMap((folder) => sourcesUnder(join(SRC, folder)));
    expect(violations(files, word, why)).toEqual([]);
  });

  it('lookup says substring: "query" is only its published argument there', () => {
    expect(lookupQueryViolations()).toEqual([]);
  });

  it.each(RETIRED_IDENTIFIERS)('$why', ({ word, why }) => {
    expect(violations(sourcesUnder(SRC), word, why)).toEqual([]);
  });

  it('a user is a user: "profile" only as the published profile_id / profileId', () => {
    expect(profileViolations()).toEqual([]);
  });

  it('"policy" alone is a team compaction policy; a row-level security policy is named in full', () => {
    expect(unqualifiedPolicies()).toEqual([]);
  });

  it("a rule is a summary rule: no *.rules.ts file (a module's checks are *.checks.ts)", () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.rules.ts'));
    expect(files).toEqual([]);
  });

  it('tool_memory, the published tag of stubs and lookup notices, is said only where those texts are made', () => {
    const makers = ['lookup', join('tool-results', 'handle', 'stub.ts'), 'mcp'];
    const files = sourcesUnder(SRC).filter((file) => !makers.some((maker) => relative(SRC, file).startsWith(maker)));
    expect(violations(files, /tool_memory/, 'only lookup, the stub and MCP speak as tool_memory')).toEqual([]);
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
