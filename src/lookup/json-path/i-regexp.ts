import { FunctionExpressionType, JSONPathEnvironment, jsonpath, type FilterFunction } from 'json-p3';
import { RE2JS } from 're2js';

/** Compiled patterns kept per function, as json-p3 keeps its own: a filter asks the same pattern once per node. */
const CACHE_SIZE = 10;

/**
 * An I-Regexp (RFC 9485) written in RE2 syntax, for a pattern already checked to be one. RE2 runs
 * in time linear in the input, so no pattern can backtrack for ages (`(a|a)*b`). RFC 9485 §5.3
 * maps I-Regexp to other engines: `.` is any character but \n and \r (RE2's matches \r); the rest,
 * classes, escapes, \p{…} and `^`/`$` (anchors, as the compliance suite reads them), mean the same.
 */
export function iRegexpToRe2(pattern: string): string {
  let out = '';
  let inClass = false;
  let escaped = false;
  for (const ch of pattern) {
    if (escaped) {
      out += ch;
      escaped = false;
    } else if (ch === '\\') {
      out += ch;
      escaped = true;
    } else if (inClass) {
      // An I-Regexp class holds no unescaped `]`, so the first one closes it (RE2 would read `[]` otherwise).
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else if (ch === '.') out += '[^\\n\\r]';
    else out += ch;
  }
  return out;
}

/** json-p3's match(), asked only to throw when a pattern is no I-Regexp: it checks before it compiles. */
const syntaxCheck = new jsonpath.functions.Match({ throwErrors: true, cacheSize: 0, iRegexpCheck: true });

/**
 * Whether a pattern is an I-Regexp, by json-p3's own checker (which it does not export). On the
 * empty string the JavaScript expression it then builds finishes at once, whatever the pattern.
 */
function isIRegexp(pattern: string): boolean {
  try {
    syntaxCheck.call('', pattern);
    return true;
  } catch (error) {
    // Any other error is JavaScript refusing a valid I-Regexp; RE2 gets its own say.
    return (error as Error | null)?.name !== 'IRegexpError';
  }
}

class Re2Function implements FilterFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  private readonly cache = new Map<string, RE2JS | null>();

  constructor(private readonly whole: boolean) {}

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false;
    const re = this.compiled(pattern);
    if (re === null) return false;
    return this.whole ? re.matches(value) : re.test(value);
  }

  /** The pattern in RE2, or null when it is no I-Regexp (or one RE2 refuses, e.g. a repeat above 1000). */
  private compiled(pattern: string): RE2JS | null {
    const cached = this.cache.get(pattern);
    if (cached !== undefined) return cached;
    let re: RE2JS | null = null;
    if (isIRegexp(pattern)) {
      try {
        re = RE2JS.compile(iRegexpToRe2(pattern));
      } catch {
        re = null;
      }
    }
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(pattern, re);
    return re;
  }
}

/**
 * json-p3's environment with match() and search() on RE2 (RFC 9535 §2.4.6, §2.4.7): the same
 * answers, in linear time. Parsing and evaluation use it alike, so a query type-checks the same
 * way on the main thread and in a worker.
 */
export function linearTimeEnvironment(): JSONPathEnvironment {
  const environment = new JSONPathEnvironment();
  environment.functionRegister.set('match', new Re2Function(true));
  environment.functionRegister.set('search', new Re2Function(false));
  return environment;
}
