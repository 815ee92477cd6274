import { searchLines, type LineSearchTask } from '../line-search';

const TASK: Omit<LineSearchTask, 'text' | 'pattern'> = { lineStart: 1, lineEnd: Number.MAX_SAFE_INTEGER, timeoutMs: 1000 };

/** The matching line numbers, searching every line of `text`. */
function matching(text: string, pattern: string, range: Partial<LineSearchTask> = {}): number[] | string {
  const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const answer = searchLines({ ...TASK, lineEnd: lines, ...range, text, pattern });
  if ('problem' in answer) return answer.problem;
  if ('timedOut' in answer) return 'timed out';
  return answer.lines;
}

describe('searchLines (R-LG-2 pattern)', () => {
  it('R-LG-2 finds the lines a plain filter finds, with where each starts', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `${i + 1} worker-${i % 7} ${i % 13 === 0 ? 'ERROR timeout' : 'ok'}`);
    const text = lines.join('\n');
    const expected = lines.flatMap((line, i) => (/worker-[35] ERROR/.test(line) ? [i + 1] : []));
    const answer = searchLines({ ...TASK, lineEnd: 500, text, pattern: 'worker-[35] ERROR' });
    expect(answer).toEqual({ lines: expected, starts: expected.map((n) => text.indexOf(lines[n - 1])) });
    expect(expected.length).toBeGreaterThan(5);
  });

  it('R-LG-2 reads lines as a line range does: ^ and $ are a line’s start and end, a CRLF’s \\r is not in the line', () => {
    const text = 'alpha\r\nbeta\r\n\r\ngamma\rx\n';
    expect(matching(text, 'a$')).toEqual([1, 2]);
    expect(matching(text, '^$')).toEqual([3]);
    expect(matching(text, '\\r')).toEqual([4]);
    expect(matching(text, '^gamma\\rx$')).toEqual([4]);
    expect(matching('no newline at the end', 'end$')).toEqual([1]);
  });

  it('R-LG-2 is case-sensitive unless the pattern says (?i)', () => {
    const text = 'Error one\nerror two\nERROR three';
    expect(matching(text, 'error')).toEqual([2]);
    expect(matching(text, '(?i)error')).toEqual([1, 2, 3]);
  });

  it('R-LG-2 searches only lineStart…lineEnd', () => {
    const text = Array.from({ length: 20 }, (_, i) => `x${i + 1}`).join('\n');
    expect(matching(text, 'x', { lineStart: 5, lineEnd: 7 })).toEqual([5, 6, 7]);
    expect(matching(text, '^x1', { lineStart: 11 })).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it('R-LG-2 patterns that make a backtracking engine run for ages answer at once in RE2', () => {
    const text = `${'a'.repeat(100_000)}\n${'a'.repeat(50)}b`;
    expect(matching(text, '(a|a)*b')).toEqual([2]);
    expect(matching(text, '(a+)+$')).toEqual([1]);
    expect(matching(text, '^(a|aa)*c')).toEqual([]);
  });

  it('R-LG-2 says why RE2 refuses a pattern, and what it lacks when the pattern reaches for it', () => {
    expect(matching('a', '(a')).toBe('missing closing ): `(a`');
    expect(matching('a', 'a**')).toBe('invalid nested repetition operator: `**`');
    expect(matching('a', '(a)\\1')).toBe('invalid escape sequence: `\\1` (RE2 has no backreferences)');
    expect(matching('a', 'a(?=b)')).toBe('invalid or unsupported Perl syntax: `(?=` (RE2 has no lookahead or lookbehind)');
    expect(matching('a', '(?<!b)a')).toMatch(/\(RE2 has no lookahead or lookbehind\)$/);
    expect(matching('a', 'a{1001}')).toBe('invalid repeat count: `{1001}`');
  });

  it('R-LG-2 a pattern whose program is huge is stopped at the time budget, not left to run', () => {
    // Under 1,000 characters, but about a hundred thousand instructions: slow per character, still linear.
    const pattern = '\\pL{1000}'.repeat(100);
    const answer = searchLines({ ...TASK, lineEnd: 1, text: 'é'.repeat(200_000), pattern, timeoutMs: 50 });
    expect(answer).toEqual({ timedOut: true });
  });
});
