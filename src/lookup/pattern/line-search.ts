import { RE2JS, RE2JSException } from 're2js';
import { lineAt, lineOffset } from '../../common/text/text-lines';
import { runWithTimeout } from '../../common/workers/timed-run';

/** One pattern search as a worker thread receives it: plain data. */
export interface LineSearchTask {
  /** The payload as FULL serves it. */
  text: string;
  /** RE2 syntax, at most PATTERN_MAX_CHARS long (checked before it is sent). */
  pattern: string;
  /** The lines searched, 1-based and inclusive; `lineEnd` is at most the text's last line. */
  lineStart: number;
  lineEnd: number;
  /** Most milliseconds the compile and the search together may run. */
  timeoutMs: number;
}

/**
 * The matching lines, ascending, with where each starts in the text; or why the pattern is
 * refused (RE2's own words); or that the budget ran out.
 */
export type LineSearchAnswer = { lines: number[]; starts: number[] } | { problem: string } | { timedOut: true };

/** Compiled patterns kept per thread: a walk asks the same pattern once per answer. */
const CACHE_SIZE = 16;
const compiled = new Map<string, RE2JS | { problem: string }>();

/**
 * The lines of `task.text` in `lineStart…lineEnd` that hold a match of the pattern, as `grep`
 * reads lines: each line on its own, without its break (a CRLF's `\r` included), so `^` and `$`
 * are its start and end. RE2 runs in time linear in each line whatever the pattern (`(a|a)*b`,
 * `(a+)+$`); a pattern with a large program (many counted repeats) is still slow per character,
 * so compile and search run under one time budget.
 */
export function searchLines(task: LineSearchTask): LineSearchAnswer {
  const run = runWithTimeout((): LineSearchAnswer => {
    const re = compile(task.pattern);
    if (!(re instanceof RE2JS)) return re;
    const lines: number[] = [];
    const starts: number[] = [];
    let from = lineOffset(task.text, task.lineStart);
    for (let number = task.lineStart; number <= task.lineEnd; number += 1) {
      const line = lineAt(task.text, from);
      if (re.test(task.text.slice(line.from, line.end))) {
        lines.push(number);
        starts.push(line.from);
      }
      from = line.next;
    }
    return { lines, starts };
  }, task.timeoutMs);
  return 'timedOut' in run ? run : run.value;
}

/** The pattern in RE2 (case-sensitive unless it says `(?i)`), or why RE2 refuses it. */
function compile(pattern: string): RE2JS | { problem: string } {
  const known = compiled.get(pattern);
  if (known !== undefined) return known;
  let re: RE2JS | { problem: string };
  try {
    re = RE2JS.compile(pattern);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    re = { problem: problemOf(pattern, error.message) };
  }
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
  compiled.set(pattern, re);
  return re;
}

/** RE2's message without its prefix, and what RE2 lacks when the pattern reaches for it. */
function problemOf(pattern: string, message: string): string {
  const reason = message.replace(/^error parsing regexp: /, '');
  if (/\(\?<?[=!]/.test(pattern)) return `${reason} (RE2 has no lookahead or lookbehind)`;
  if (/\\[1-9]/.test(pattern)) return `${reason} (RE2 has no backreferences)`;
  return reason;
}
