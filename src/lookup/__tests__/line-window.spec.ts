import fc from 'fast-check';
import { countTokens, o200kTokenizer, type PrefixTokenizer } from '../../common/text/tokenizer';
import { CONTINUE_MARKER_PREFIX, MIN_ANSWER_TOKENS, windowAnswer, type WindowLimits } from '../answer-window';
import { lineArgumentProblem, lineWindowAnswer, type LineCalls } from '../line-window';

const MEM = 'mem_abcdefghijklmnop';
const calls: LineCalls = {
  lines: (start, count) => `recall_tool_result(mem_id='${MEM}', line_start=${start}${count === null ? '' : `, line_count=${count}`})`,
  chars: (offset) => `recall_tool_result(mem_id='${MEM}', offset=${offset})`,
};
const WIDE: WindowLimits = { maxTokens: 8000, maxChars: 500_000 };

const CALL = `recall_tool_result\\(mem_id='${MEM}'`;
const LINES_MARKER = new RegExp(
  `\\n\\[… more: continue with ${CALL}, line_start=(\\d+)(?:, line_count=(\\d+))?\\); lines (\\d+)–(\\d+) of (\\d+) shown\\]$`,
);
const PART_MARKER = new RegExp(
  `\\n\\[… more: continue with ${CALL}, offset=(\\d+)\\) for the rest of line (\\d+) \\(it ends at char (\\d+)\\)` +
    `(?:, then ${CALL}, line_start=(\\d+)(?:, line_count=(\\d+))?\\))?; lines (\\d+)–(\\d+) of (\\d+) shown in part\\]$`,
);
const CHARS_MARKER = new RegExp(`\\n\\[… more: continue with ${CALL}, offset=(\\d+)\\); chars (\\d+)–(\\d+) of (\\d+) shown\\]$`);

interface ShownLine {
  number: number;
  text: string;
}

/** `     7\tsome text` → line 7, `some text`. */
function parseNumbered(row: string): ShownLine {
  const head = /^ *(\d+)\t/.exec(row);
  if (head === null) throw new Error(`not a numbered line: ${JSON.stringify(row)}`);
  return { number: Number(head[1]), text: row.slice(head[0].length) };
}

function nextRange(start: string | undefined, count: string | undefined): { start: number; count: number | null } | null {
  return start === undefined ? null : { start: Number(start), count: count === undefined ? null : Number(count) };
}

/**
 * A client reading lines by following the markers: the lines it gets, in order, and every line
 * answer. The rest of a line shown in part is read with character windows up to where it ends.
 */
function walkLines(
  text: string,
  lineStart: number,
  lineCount: number | null,
  limits: WindowLimits,
  tokenizer: PrefixTokenizer = o200kTokenizer,
): { lines: ShownLine[]; answers: string[] } {
  const lines: ShownLine[] = [];
  const answers: string[] = [];
  for (let range = nextRange(String(lineStart), lineCount === null ? undefined : String(lineCount)); range !== null;) {
    if (answers.length > 50_000) throw new Error('the walk did not end');
    const answer = lineWindowAnswer(text, range.start, range.count, limits, calls, tokenizer);
    answers.push(answer);
    const part = PART_MARKER.exec(answer);
    const marker = part ?? LINES_MARKER.exec(answer);
    const shown = (marker === null ? answer : answer.slice(0, marker.index)).split('\n').map(parseNumbered);
    expect(shown[0].number).toBe(range.start);
    if (part !== null) {
      expect(shown).toHaveLength(1);
      expect(Number(part[6])).toBe(range.start);
      shown[0].text += restOfLine(text, Number(part[1]), Number(part[3]), limits, tokenizer);
      range = nextRange(part[4], part[5]);
    } else if (marker !== null) {
      expect([Number(marker[3]), Number(marker[4])]).toEqual([range.start, range.start + shown.length - 1]);
      range = nextRange(marker[1], marker[2]);
    } else {
      range = null;
    }
    lines.push(...shown);
  }
  return { lines, answers };
}

/** text[offset, end), read through windowAnswer's character windows as a client would. */
function restOfLine(text: string, offset: number, end: number, limits: WindowLimits, tokenizer: PrefixTokenizer): string {
  let rest = '';
  for (let at = offset; at < end;) {
    const answer = windowAnswer(text, at, limits, calls.chars, tokenizer);
    const marker = CHARS_MARKER.exec(answer);
    rest += (marker === null ? answer : answer.slice(0, marker.index)).slice(0, end - at);
    at = marker === null ? text.length : Number(marker[1]);
  }
  return rest;
}

/** The lines as `text.split(/\r?\n/)` sees them, less the empty piece after a trailing newline. */
function expectedLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  return text.endsWith('\n') || text === '' ? lines.slice(0, -1) : lines;
}

/** A ~1 MB log of 10,000 lines of varying length, some ending in CRLF, the last without a newline. */
function makeLog(): string {
  const rows = Array.from({ length: 10_000 }, (_, i) => {
    const second = String(i % 60).padStart(2, '0');
    const row = `2026-12-01T10:17:${second}Z INFO worker-${i % 7} job=${i} took ${(i * 37) % 1000}ms ${'payload ok '.repeat(i % 11)}`;
    return i === 9_999 ? row : `${row}${i % 13 === 0 ? '\r\n' : '\n'}`;
  });
  return rows.join('');
}

describe('lineWindowAnswer', () => {
  it('R-LG-2 lines are numbered like cat -n, byte for byte', () => {
    const text = 'alpha\nbeta\n\ngamma delta';
    expect(lineWindowAnswer(text, 1, null, WIDE, calls, o200kTokenizer)).toBe('     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma delta');
    expect(lineWindowAnswer(text, 2, 2, WIDE, calls, o200kTokenizer)).toBe('     2\tbeta\n     3\t');
    // A count past the last line reads to the end.
    expect(lineWindowAnswer(text, 4, 50, WIDE, calls, o200kTokenizer)).toBe('     4\tgamma delta');
    // Seven digits take the whole column, as cat -n does.
    expect(lineWindowAnswer(`${'\n'.repeat(999_999)}last`, 999_999, null, WIDE, calls, o200kTokenizer)).toBe('999999\t\n1000000\tlast');
  });

  it('R-LG-2 a cut range ends with one marker line naming the exact call for the rest of the count', () => {
    const text = 'alpha\nbeta\n\ngamma delta';
    // 24 characters hold lines 1–2 (12 + 1 + 11); line 3 would make 32.
    expect(lineWindowAnswer(text, 1, 3, { maxTokens: 8000, maxChars: 24 }, calls, o200kTokenizer)).toBe(
      `     1\talpha\n     2\tbeta\n${CONTINUE_MARKER_PREFIX}recall_tool_result(mem_id='${MEM}', line_start=3, line_count=1); lines 1–2 of 4 shown]`,
    );
    expect(lineWindowAnswer(text, 1, null, { maxTokens: 8000, maxChars: 24 }, calls, o200kTokenizer)).toBe(
      `     1\talpha\n     2\tbeta\n${CONTINUE_MARKER_PREFIX}recall_tool_result(mem_id='${MEM}', line_start=3); lines 1–2 of 4 shown]`,
    );
  });

  it('R-LG-2 a CRLF break is not part of the line; a lone CR is', () => {
    expect(lineWindowAnswer('one\r\ntwo\r\nthree\r', 1, null, WIDE, calls, o200kTokenizer)).toBe(
      '     1\tone\n     2\ttwo\n     3\tthree\r',
    );
    expect(lineWindowAnswer('a\rb\r\n\r\nc', 1, null, WIDE, calls, o200kTokenizer)).toBe('     1\ta\rb\n     2\t\n     3\tc');
  });

  it('R-LG-2 a last line without a newline is a line; a trailing newline starts none', () => {
    expect(lineWindowAnswer('a\nb', 2, null, WIDE, calls, o200kTokenizer)).toBe('     2\tb');
    expect(lineWindowAnswer('a\nb\n', 2, null, WIDE, calls, o200kTokenizer)).toBe('     2\tb');
    expect(lineWindowAnswer('a\nb\n', 3, null, WIDE, calls, o200kTokenizer)).toBe(
      '[tool_memory bad range: line_start 3 is past the end (2 lines)]',
    );
    expect(lineWindowAnswer('a\r\n', 1, null, WIDE, calls, o200kTokenizer)).toBe('     1\ta');
    expect(lineWindowAnswer('\n', 1, null, WIDE, calls, o200kTokenizer)).toBe('     1\t');
    expect(lineWindowAnswer('\n', 2, null, WIDE, calls, o200kTokenizer)).toBe(
      '[tool_memory bad range: line_start 2 is past the end (1 line)]',
    );
    expect(lineWindowAnswer('', 1, null, WIDE, calls, o200kTokenizer)).toBe(
      '[tool_memory bad range: line_start 1 is past the end (0 lines)]',
    );
  });

  it('R-LG-2 arguments that can never be valid are refused before any query', () => {
    expect(lineArgumentProblem(1, null)).toBeNull();
    expect(lineArgumentProblem(3, 7)).toBeNull();
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
      expect(lineArgumentProblem(bad, null)).toBe(`[tool_memory bad range: line_start must be a positive integer, got ${String(bad)}]`);
      expect(lineArgumentProblem(1, bad)).toBe(`[tool_memory bad range: line_count must be a positive integer, got ${String(bad)}]`);
    }
    expect(lineWindowAnswer('a\nb', 0, null, WIDE, calls, o200kTokenizer)).toBe(lineArgumentProblem(0, null));
    expect(lineWindowAnswer('a\nb', 1, 0, WIDE, calls, o200kTokenizer)).toBe(lineArgumentProblem(1, 0));
  });

  describe('a 10,000-line log', () => {
    const log = makeLog();
    const lines = expectedLines(log);

    it('R-LG-2 walking the markers from line 1 visits every line once, in order, each answer within the bound and nearly full', () => {
      expect(lines).toHaveLength(10_000);
      expect(log.length).toBeGreaterThan(900_000);
      const walked = walkLines(log, 1, null, WIDE);
      expect(walked.lines.map((line) => line.number)).toEqual(lines.map((_, i) => i + 1));
      expect(walked.lines.map((line) => line.text)).toEqual(lines);
      const longestLine = Math.max(...lines.map((line) => countTokens(`     1\t${line}\n`)));
      for (const answer of walked.answers) {
        expect(countTokens(answer)).toBeLessThanOrEqual(WIDE.maxTokens);
        if (LINES_MARKER.test(answer)) expect(countTokens(answer)).toBeGreaterThan(WIDE.maxTokens - longestLine);
        expect(answer).not.toContain('\r');
      }
    });

    it('R-LG-2 walking lines 100–2599 stops exactly at line 2599', () => {
      const walked = walkLines(log, 100, 2500, WIDE);
      expect(walked.answers.length).toBeGreaterThan(1);
      expect(walked.lines.map((line) => line.number)).toEqual(Array.from({ length: 2500 }, (_, i) => 100 + i));
      expect(walked.lines.map((line) => line.text)).toEqual(lines.slice(99, 2599));
      expect(walked.answers.at(-1)).not.toContain(CONTINUE_MARKER_PREFIX);
    });

    it('R-LG-2 a window tokenizes about what it returns, not the whole log', () => {
      let countedChars = 0;
      const recording = { ...o200kTokenizer, count: (text: string) => ((countedChars += text.length), countTokens(text)) };
      const answer = lineWindowAnswer(log, 1, null, WIDE, calls, recording);
      expect(answer).toBe(lineWindowAnswer(log, 1, null, WIDE, calls, o200kTokenizer));
      expect(log.length).toBeGreaterThan(30 * answer.length);
      // The lines one by one, then the answer whole.
      expect(countedChars).toBeLessThan(2.2 * answer.length);
    });
  });

  describe('a line too long for one answer', () => {
    const json = JSON.stringify(Array.from({ length: 4000 }, (_, i) => ({ sku: `B0${i}`, price: i * 1.37, title: `Product ${i} 😀` })));
    const text = `first line\r\nsecond line\n${json}\nfourth line\r\nfifth`;
    const lineFrom = text.indexOf(json);

    it('R-LG-2 the lines before it are shown whole, and the marker reads on from it', () => {
      expect(json.length).toBeGreaterThan(200_000);
      expect(lineWindowAnswer(text, 1, null, WIDE, calls, o200kTokenizer)).toBe(
        `     1\tfirst line\n     2\tsecond line\n${CONTINUE_MARKER_PREFIX}recall_tool_result(mem_id='${MEM}', line_start=3); lines 1–2 of 5 shown]`,
      );
    });

    it('R-LG-2 is shown in part, with both calls named; the chars call reads on exactly where the shown part ends', () => {
      let countedChars = 0;
      const recording = { ...o200kTokenizer, count: (piece: string) => ((countedChars += piece.length), countTokens(piece)) };
      const answer = lineWindowAnswer(text, 3, null, WIDE, calls, recording);
      expect(answer).toBe(lineWindowAnswer(text, 3, null, WIDE, calls, o200kTokenizer));
      const marker = PART_MARKER.exec(answer);
      expect(marker).not.toBeNull();
      const shown = parseNumbered(answer.slice(0, marker?.index));
      expect(shown.number).toBe(3);
      expect(json.startsWith(shown.text)).toBe(true);
      expect(Number(marker?.[1])).toBe(lineFrom + shown.text.length);
      expect(Number(marker?.[3])).toBe(lineFrom + json.length);
      expect([marker?.[4], marker?.[5]]).toEqual(['4', undefined]);
      expect(countTokens(answer)).toBeLessThanOrEqual(WIDE.maxTokens);
      expect(countTokens(answer)).toBeGreaterThan(0.95 * WIDE.maxTokens);
      // Never half of a surrogate pair.
      expect(shown.text).toBe(Array.from(shown.text).join(''));
      // The line as far as the room reaches, then the cut, then the answer: never the whole line.
      expect(countedChars).toBeLessThan(4 * answer.length);
    });

    it('R-LG-2 names the rest of the requested count after it, or no lines call when it is the last one requested', () => {
      expect(lineWindowAnswer(text, 3, 2, WIDE, calls, o200kTokenizer)).toMatch(
        new RegExp(
          `for the rest of line 3 \\(it ends at char ${lineFrom + json.length}\\), then ${CALL}, line_start=4, line_count=1\\); lines 3–3 of 5 shown in part\\]$`,
        ),
      );
      expect(lineWindowAnswer(text, 3, 1, WIDE, calls, o200kTokenizer)).toMatch(
        /for the rest of line 3 \(it ends at char \d+\); lines 3–3 of 5 shown in part\]$/,
      );
    });

    it('R-LG-2 keeps the character bound, and never counts the whole line', () => {
      let countedChars = 0;
      const recording = { ...o200kTokenizer, count: (piece: string) => ((countedChars += piece.length), countTokens(piece)) };
      const answer = lineWindowAnswer(text, 3, null, { maxTokens: 8000, maxChars: 1000 }, calls, recording);
      const marker = PART_MARKER.exec(answer);
      expect(marker?.index).toBeLessThanOrEqual(1000);
      expect(Number(marker?.[1])).toBe(lineFrom + (marker?.index ?? 0) - '     3\t'.length);
      expect(countedChars).toBeLessThan(json.length / 10);
    });

    it('R-LG-2 walking the markers (chars for the rest of the long line) gives every line back', () => {
      const walked = walkLines(text, 1, null, WIDE);
      expect(walked.lines).toEqual(expectedLines(text).map((line, i) => ({ number: i + 1, text: line })));
      for (const answer of walked.answers) expect(countTokens(answer)).toBeLessThanOrEqual(WIDE.maxTokens);
    });
  });

  it('R-LG-2 the answer is counted whole: lines are dropped, and a cut made shorter, while it is over', () => {
    // Counts of parts never add up to the whole here: long texts, many lines and long numbered texts cost extra.
    const extra = (text: string) => Math.floor(text.length ** 2 / 1e5) + Math.floor(text.split('\n').length ** 2 / 20);
    const lumpy: PrefixTokenizer = {
      count: (text) => Math.ceil(text.length / 4) + extra(text) + (text.length > 1000 && text.includes('\t') ? 300 : 0),
      boundaryFrom: (text) => text.length,
    };
    const rows = Array.from({ length: 400 }, (_, i) => `row ${i} ${'lorem ipsum '.repeat(i % 9)}`);
    rows.splice(200, 0, 'x'.repeat(30_000));
    const text = rows.join('\n');
    const limits = { maxTokens: 3000, maxChars: 500_000 };
    const walked = walkLines(text, 1, null, limits, lumpy);
    expect(walked.lines).toEqual(rows.map((row, i) => ({ number: i + 1, text: row })));
    expect(walked.answers.some((answer) => PART_MARKER.test(answer))).toBe(true);
    for (const answer of walked.answers) expect(lumpy.count(answer)).toBeLessThanOrEqual(limits.maxTokens);
  });

  it('R-LG-2 walking any text from line 1 rebuilds its lines exactly (CR, LF, CRLF, astral characters, tiny bounds)', () => {
    const unit = fc.constantFrom('a', 'word ', ' ', '\r', '\n', '\r\n', '😀', '𒐫', 'é', '{"k":1}', '\t', '9');
    const payload = fc.oneof(fc.string({ unit, maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }));
    fc.assert(
      fc.property(
        payload,
        fc.integer({ min: MIN_ANSWER_TOKENS, max: 400 }),
        fc.integer({ min: 1, max: 600 }),
        (text, maxTokens, maxChars) => {
          const lines = expectedLines(text);
          fc.pre(lines.length > 0);
          const limits = { maxTokens, maxChars };
          const walked = walkLines(text, 1, null, limits);
          expect(walked.lines).toEqual(lines.map((line, i) => ({ number: i + 1, text: line })));
          for (const answer of walked.answers) {
            expect(countTokens(answer)).toBeLessThanOrEqual(maxTokens);
            const marker = PART_MARKER.exec(answer) ?? LINES_MARKER.exec(answer);
            const body = marker === null ? answer : answer.slice(0, marker.index);
            // Over the character bound only the one code point (or empty line) that keeps a walk moving.
            if (body.length > maxChars) expect(Array.from(parseNumbered(body).text).length).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
