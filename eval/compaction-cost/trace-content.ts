/**
 * Deterministic look-alike tool payloads for the cost trace: source files, grep hits, shell and
 * test output, fetched pages, search results. Each is a pure function of a seeded `random` and
 * its arguments; the sizes are what matter to the cost model, the words only need to tokenize the
 * way real code and prose do (about 3 to 4 characters a token).
 */

export type Random = () => number;

const WORDS = (
  'the a of to and in is that for it with as on be this by are from at or an not which have has but ' +
  'request response cache token history message result tool value error config service module client ' +
  'server query index table schema field record stream buffer handler option default limit timeout ' +
  'retry budget window offset prefix summary snapshot migration release version update pending active'
).split(' ');
const IDENTIFIERS = (
  'parseHeader readConfig tokenBudget cacheKey historyEntries toolResult retryPolicy streamReader ' +
  'requestId spanContext flushQueue batchSize normalizePath resolveModule loadSchema writeRecord ' +
  'compactList encodeFrame decodeFrame sessionStore rateLimiter backoffMs maxChars lineCount'
).split(' ');
const DIRECTORIES = ['src/http', 'src/cache', 'src/history', 'src/store', 'src/cli', 'lib/codec', 'test/unit', 'test/e2e'];

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** An integer in [min, max], spread evenly in log scale (many small, a few large). */
export function logUniform(random: Random, min: number, max: number): number {
  return Math.round(Math.exp(Math.log(min) + random() * (Math.log(max) - Math.log(min))));
}

function sentence(random: Random, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(random() < 0.12 ? pick(random, IDENTIFIERS) : pick(random, WORDS));
  const text = out.join(' ');
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

export function filePath(random: Random, extension = 'ts'): string {
  return `${pick(random, DIRECTORIES)}/${pick(random, IDENTIFIERS).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.${extension}`;
}

/** One line of TypeScript-looking source. */
function sourceLine(random: Random, line: number): string {
  const id = pick(random, IDENTIFIERS);
  const other = pick(random, IDENTIFIERS);
  const indent = '  '.repeat(Math.floor(random() * 3));
  switch (Math.floor(random() * 6)) {
    case 0:
      return `${indent}const ${id}${line} = ${other}(${Math.floor(random() * 4096)}, '${pick(random, WORDS)}');`;
    case 1:
      return `${indent}if (${id} > ${other}.${pick(random, IDENTIFIERS)}) return ${pick(random, WORDS) === 'error' ? 'null' : id};`;
    case 2:
      return `${indent}// ${sentence(random, 6 + Math.floor(random() * 8))}`;
    case 3:
      return `${indent}export function ${id}${line}(${other}: string, limit = ${Math.floor(random() * 100)}): number {`;
    case 4:
      return `${indent}}`;
    default:
      return `${indent}await this.${id}.${other}({ ${pick(random, WORDS)}: ${line}, ${pick(random, IDENTIFIERS)} });`;
  }
}

/** Source text of about `chars` characters. */
export function sourceText(random: Random, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let line = 1; length < chars; line++) {
    const text = sourceLine(random, line);
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n');
}

/** A file as a read tool shows it: numbered lines (`cat -n`). */
export function numberedLines(text: string): string {
  return text
    .split('\n')
    .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
    .join('\n');
}

export function grepOutput(random: Random, chars: number, pattern: string): string {
  const lines: string[] = [];
  let length = 0;
  while (length < chars) {
    const text = `${filePath(random)}:${1 + Math.floor(random() * 900)}:${sourceLine(random, lines.length).replace(/^\s+/, '')} ${pattern}`;
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n');
}

/** A test run: passing suites, and failures with stack traces when `failing`. */
export function testOutput(random: Random, chars: number, failing: boolean): string {
  const lines: string[] = [];
  let length = 0;
  let suites = 0;
  while (length < chars) {
    const path = filePath(random).replace('.ts', '.spec.ts');
    const fails = failing && random() < 0.3;
    const block = [`${fails ? 'FAIL' : 'PASS'} ${path} (${(random() * 3).toFixed(2)} s)`];
    if (fails) {
      block.push(`  ● ${sentence(random, 5)}`, '', `    expect(received).toBe(expected)`, '');
      block.push(`    Expected: ${Math.floor(random() * 500)}`, `    Received: ${Math.floor(random() * 500)}`, '');
      for (let frame = 0; frame < 4; frame++)
        block.push(
          `      at ${pick(random, IDENTIFIERS)} (${filePath(random)}:${Math.floor(random() * 400)}:${Math.floor(random() * 40)})`,
        );
    }
    const text = block.join('\n');
    lines.push(text);
    length += text.length + 1;
    suites++;
  }
  lines.push('', `Test Suites: ${failing ? '3 failed, ' : ''}${suites} total`, `Time: ${(random() * 40).toFixed(3)} s`);
  return lines.join('\n');
}

/** A fetched documentation page as text: headings and paragraphs. */
export function pageText(random: Random, chars: number, title: string): string {
  const parts = [`# ${title}`];
  let length = parts[0].length;
  while (length < chars) {
    const part =
      random() < 0.15
        ? `## ${sentence(random, 4).slice(0, -1)}`
        : Array.from({ length: 3 + Math.floor(random() * 4) }, () => sentence(random, 8 + Math.floor(random() * 14))).join(' ');
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join('\n\n');
}

/** Web search results as JSON: titles, addresses, snippets. */
export function searchResults(random: Random, chars: number, query: string): string {
  const results: { title: string; url: string; snippet: string; published: string }[] = [];
  let length = 0;
  while (length < chars) {
    const result = {
      title: sentence(random, 6).slice(0, -1),
      url: `https://docs.example.org/${pick(random, WORDS)}/${pick(random, IDENTIFIERS).toLowerCase()}`,
      snippet: `${sentence(random, 18)} ${sentence(random, 14)}`,
      published: `2025-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')}`,
    };
    results.push(result);
    length += JSON.stringify(result).length;
  }
  return JSON.stringify({ query, results });
}

/** A word the text is sure to hold, for a keyed re-read (`query`). */
export function wordIn(random: Random, text: string): string {
  const candidates = IDENTIFIERS.filter((id) => text.includes(id));
  return candidates.length > 0 ? pick(random, candidates) : 'the';
}

export function prose(random: Random, sentences: number): string {
  return Array.from({ length: sentences }, () => sentence(random, 6 + Math.floor(random() * 10))).join(' ');
}
