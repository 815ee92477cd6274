import fc from 'fast-check';
import { parsePatternRow, type PatternRow } from '../../../../test/support/pattern-rows';
import { countLines } from '../../../common/text/text-lines';
import { o200kTokenizer } from '../../../common/text/tokenizer';
import type { WindowLimits } from '../../answer-window';
import type { LineCalls } from '../../line-window';
import { searchLines } from '../line-search';
import { contextLinesProblem, patternWindowAnswer } from '../pattern-window';

const MEM = 'mem_abcdefghijklmnop';
const WIDE: WindowLimits = { maxTokens: 8000, maxChars: 500_000 };
const CALL = `recall_tool_result\\(mem_id='${MEM}'`;
const SEARCH_CALL = `${CALL}, pattern=[^\\n]*?, line_start=(\\d+)(?:, line_count=(\\d+))?\\)`;
const MARKER = new RegExp(`\\n\\[… more: continue with ${SEARCH_CALL}; (\\d+) of (\\d+) matching lines shown, up to line (\\d+)\\]$`);
const PART_MARKER = new RegExp(
  `\\n\\[… more: continue with ${CALL}, offset=(\\d+)\\) for the rest of line (\\d+) \\(it ends at char (\\d+)\\)` +
    `(?:, then ${SEARCH_CALL})?; 1 of (\\d+) matching lines shown in part\\]$`,
);
const COUNT = /^\[(\d+) matching lines? (?:of (\d+)|in lines (\d+)–(\d+) of (\d+))\]$/;

function callsFor(pattern: string): LineCalls {
  return {
    lines: (start, count) =>
      `recall_tool_result(mem_id='${MEM}', pattern=${JSON.stringify(pattern)}, line_start=${start}${count === null ? '' : `, line_count=${count}`})`,
    chars: (offset) => `recall_tool_result(mem_id='${MEM}', offset=${offset})`,
  };
}

/** The service's path without the pool: search, then number and window. */
function answer(text: string, pattern: string, lineStart = 1, lineCount: number | null = null, contextLines = 0, limits = WIDE): string {
  const total = countLines(text);
  const lineEnd = lineCount === null ? total : Math.min(total, lineStart + lineCount - 1);
  const found = searchLines({ text, pattern, lineStart, lineEnd, timeoutMs: 5000 });
  if (!('lines' in found)) throw new Error(JSON.stringify(found));
  return patternWindowAnswer(
    text,
    { total, lineStart, lineEnd, lines: found.lines, starts: found.starts },
    { contextLines, lineCount },
    limits,
    callsFor(pattern),
    o200kTokenizer,
  );
}

/** The lines as a line range reads them. */
function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  return text.endsWith('\n') || text.length === 0 ? lines.slice(0, -1) : lines;
}

/**
 * A client following the markers from `lineStart`, as a model would: every line shown (a line
 * shown in part is read on with character windows), and every answer.
 */
function walk(text: string, pattern: string, contextLines: number, limits: WindowLimits, lineStart = 1, lineCount: number | null = null) {
  const shown: PatternRow[] = [];
  const answers: string[] = [];
  const all = linesOf(text);
  for (let next: { start: number; count: number | null } | null = { start: lineStart, count: lineCount }; next !== null;) {
    if (answers.length > 10_000) throw new Error('the walk did not end');
    const got = answer(text, pattern, next.start, next.count, contextLines, limits);
    answers.push(got);
    expect(o200kTokenizer.count(got)).toBeLessThanOrEqual(limits.maxTokens);
    const [countLine, ...rest] = got.split('\n');
    expect(countLine).toMatch(COUNT);
    const body = rest.join('\n');
    const part = PART_MARKER.exec(`\n${body}`);
    const marker = part ?? MARKER.exec(`\n${body}`);
    const rows = (marker === null ? body : `\n${body}`.slice(1, marker.index)).split('\n').filter((row) => row !== '' && row !== '--');
    if (part !== null) {
      const row = parsePatternRow(rows[0]);
      expect(rows).toHaveLength(1);
      expect(row.match).toBe(true);
      // The rest of the line, by character windows, up to where the marker says it ends.
      expect(all[row.number - 1].startsWith(row.text)).toBe(true);
      shown.push({ ...row, text: all[row.number - 1] });
      next = part[4] === undefined ? null : { start: Number(part[4]), count: part[5] === undefined ? null : Number(part[5]) };
      continue;
    }
    shown.push(...rows.filter((row) => row.length > 0).map(parsePatternRow));
    next = marker === null ? null : { start: Number(marker[1]), count: marker[2] === undefined ? null : Number(marker[2]) };
  }
  return { shown, answers };
}

describe('patternWindowAnswer (R-LG-2 pattern)', () => {
  const LOG = Array.from(
    { length: 3000 },
    (_, i) => `${String(i + 1).padStart(5, '0')} worker-${i % 7} ${i % 37 === 0 ? 'ERROR' : 'ok'} done`,
  );
  const TEXT = LOG.join('\r\n');
  const ERRORS = LOG.flatMap((line, i) => (line.includes('ERROR') ? [i + 1] : []));

  it('R-LG-2 counts the matches, numbers each matching line like cat -n with a colon, byte for byte', () => {
    const text = 'alpha\nbeta\ngamma\nbetamax\n';
    expect(answer(text, 'beta')).toBe('[2 matching lines of 4]\n     2:\tbeta\n     4:\tbetamax');
    expect(answer(text, '^g')).toBe('[1 matching line of 4]\n     3:\tgamma');
    expect(answer(text, 'delta')).toBe('[0 matching lines of 4]');
    expect(answer(text, 'a', 2, 2)).toBe('[2 matching lines in lines 2–3 of 4]\n     2:\tbeta\n     3:\tgamma');
  });

  it('R-LG-2 shows context lines with a dash, merges groups that touch, and separates the others with --', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}${[3, 5, 15].includes(i + 1) ? ' hit' : ''}`).join('\n');
    expect(answer(text, 'hit', 1, null, 1)).toBe(
      [
        '[3 matching lines of 20]',
        '     2-\tline 2',
        '     3:\tline 3 hit',
        '     4-\tline 4',
        '     5:\tline 5 hit',
        '     6-\tline 6',
        '--',
        '    14-\tline 14',
        '    15:\tline 15 hit',
        '    16-\tline 16',
      ].join('\n'),
    );
    // Context stays within the searched lines.
    expect(answer(text, 'hit', 3, 3, 2)).toBe(
      ['[2 matching lines in lines 3–5 of 20]', '     3:\tline 3 hit', '     4-\tline 4', '     5:\tline 5 hit'].join('\n'),
    );
    // Without context, no separators: grep -n.
    expect(answer(text, 'hit')).toBe('[3 matching lines of 20]\n     3:\tline 3 hit\n     5:\tline 5 hit\n    15:\tline 15 hit');

    // Groups that only touch (lines 2–4 and 5–7) are one group, as grep shows them; one line apart, two.
    const hits = (at: number[]) => Array.from({ length: 10 }, (_, i) => `line ${i + 1}${at.includes(i + 1) ? ' hit' : ''}`).join('\n');
    expect(answer(hits([3, 6]), 'hit', 1, null, 1).split('\n')).toEqual([
      '[2 matching lines of 10]',
      '     2-\tline 2',
      '     3:\tline 3 hit',
      '     4-\tline 4',
      '     5-\tline 5',
      '     6:\tline 6 hit',
      '     7-\tline 7',
    ]);
    expect(answer(hits([3, 7]), 'hit', 1, null, 1).split('\n')).toEqual([
      '[2 matching lines of 10]',
      '     2-\tline 2',
      '     3:\tline 3 hit',
      '     4-\tline 4',
      '--',
      '     6-\tline 6',
      '     7:\tline 7 hit',
      '     8-\tline 8',
    ]);
  });

  it('R-LG-2 a cut answer ends with one marker naming the search from the first line not shown', () => {
    const got = answer(TEXT, 'ERROR', 1, null, 2, { maxTokens: 300, maxChars: 500_000 });
    const marker = MARKER.exec(got)!;
    expect(marker).not.toBeNull();
    expect(got.split('\n').filter((line) => line.startsWith('[… more'))).toHaveLength(1);
    const last = got.slice(0, marker.index).split('\n').pop()!;
    expect(Number(marker[1])).toBe(parsePatternRow(last).number + 1);
    expect(Number(marker[5])).toBe(parsePatternRow(last).number);
    expect(Number(marker[4])).toBe(ERRORS.length);
    expect(got.startsWith(`[${ERRORS.length} matching lines of 3000]\n`)).toBe(true);
    expect(got).toContain(`recall_tool_result(mem_id='${MEM}', pattern="ERROR", line_start=${marker[1]})`);
  });

  it.each([
    [0, 400],
    [1, 400],
    [3, 400],
    [50, 8000],
  ])(
    'R-LG-2 walking the markers with %i context lines (%i tokens an answer) shows every match once and every context line',
    (contextLines, maxTokens) => {
      const { shown, answers } = walk(TEXT, 'ERROR', contextLines, { maxTokens, maxChars: 500_000 });
      expect(answers.length).toBeGreaterThan(3);
      expect(shown.filter((row) => row.match).map((row) => row.number)).toEqual(ERRORS);
      for (const row of shown) expect(row.text).toBe(LOG[row.number - 1]);
      const context = new Set(ERRORS.flatMap((m) => Array.from({ length: 2 * contextLines + 1 }, (_, i) => m - contextLines + i)));
      const expected = [...context].filter((n) => n >= 1 && n <= LOG.length && !ERRORS.includes(n)).sort((a, b) => a - b);
      expect([...new Set(shown.filter((row) => !row.match).map((row) => row.number))].sort((a, b) => a - b)).toEqual(expected);
    },
  );

  it('R-LG-2 a line count bounds the search through the walk; the marker repeats what is left of it', () => {
    const { shown, answers } = walk(TEXT, 'ERROR', 0, { maxTokens: 150, maxChars: 500_000 }, 100, 1500);
    expect(shown.map((row) => row.number)).toEqual(ERRORS.filter((n) => n >= 100 && n < 1600));
    const calls = answers.map((got) => MARKER.exec(got)).filter((m) => m !== null);
    for (const m of calls) expect(Number(m[1]) + Number(m[2]) - 1).toBe(1599);
  });

  it('R-LG-2 keeps the character bound on the numbered lines', () => {
    const got = answer(TEXT, 'ERROR', 1, null, 0, { maxTokens: 8000, maxChars: 200 });
    const marker = MARKER.exec(got)!;
    const body = got.slice(got.indexOf('\n') + 1, marker.index);
    expect(body.length).toBeLessThanOrEqual(200);
    expect(body.split('\n').length).toBe(Math.floor(201 / (LOG[0].length + 9)));
  });

  it('R-LG-2 a match too large with its context is shown from its line on; a matching line too long is shown in part', () => {
    const long = `start ${'word '.repeat(20_000)}end`;
    const text = ['a', 'b', 'c hit', 'd', long, 'f hit', 'g'].join('\n');
    const small = { maxTokens: 100, maxChars: 500_000 };
    const got = answer(text, 'hit', 1, null, 2, small);
    // Lines 1–5 with match 3: line 5 cannot fit, so match 3 comes with what fits after it.
    expect(got.split('\n').slice(0, 3)).toEqual(['[2 matching lines of 7]', '     3:\tc hit', '     4-\td']);
    expect(got).toMatch(MARKER);
    const inPart = answer(text, 'end$', 1, null, 0, small);
    const part = PART_MARKER.exec(inPart)!;
    expect(part).not.toBeNull();
    expect(inPart.startsWith('[1 matching line of 7]\n     5:\tstart word')).toBe(true);
    expect(Number(part[3])).toBe(text.indexOf(long) + long.length);
    expect(part[4]).toBeUndefined();
    const walked = walk(text, 'hit|end', 1, small);
    expect(walked.shown.filter((row) => row.match).map((row) => row.number)).toEqual([3, 5, 6]);
  });

  it('R-LG-2 any text, any bounds: a walk shows exactly the lines a filter selects, in order, once', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'b', 'x', ' ', '\r', '😀', 'é'), maxLength: 30 });
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 60 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 100, max: 400 }),
        fc.integer({ min: 1, max: 300 }),
        (lines, newline, trailing, contextLines, maxTokens, maxChars) => {
          const text = lines.join(newline) + (trailing ? newline : '');
          const all = linesOf(text);
          if (all.length === 0) return;
          const { shown } = walk(text, 'a.?b|x$', contextLines, { maxTokens, maxChars });
          // RE2's `.` is any character but a newline (which no line holds): JavaScript's with the s flag.
          const expected = all.flatMap((l, i) => (/a.?b|x$/su.test(l) ? [i + 1] : []));
          expect(shown.filter((row) => row.match).map((row) => row.number)).toEqual(expected);
          for (const row of shown) expect(row.text).toBe(all[row.number - 1]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('R-LG-2 context_lines outside 0–50 is refused', () => {
    expect(contextLinesProblem(0)).toBeNull();
    expect(contextLinesProblem(50)).toBeNull();
    expect(contextLinesProblem(51)).toBe('[tool_memory bad context_lines: must be an integer from 0 to 50, got 51]');
    expect(contextLinesProblem(-1)).toBe('[tool_memory bad context_lines: must be an integer from 0 to 50, got -1]');
    expect(contextLinesProblem(1.5)).toBe('[tool_memory bad context_lines: must be an integer from 0 to 50, got 1.5]');
  });
});
