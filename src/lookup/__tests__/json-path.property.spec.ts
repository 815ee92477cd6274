/**
 * Property tests (fast-check) of recallToolResult's user-input parsers (R-LG-2, R-OP-4): the
 * json_path, the query and the window arguments. The documented contract is an answer text, never
 * an error: whatever the client sends, these never throw, and what they pass on to PostgreSQL
 * is text it can take.
 */
import fc from 'fast-check';
import { isStorableText } from '../../common/text/storable-text';
import { compactJsonbText, pathFetchChars, pathValueText } from '../json-path-value';
import { parseDottedPath } from '../json-path/dotted-path';
import { sliceBySubstring } from '../keyed-slice';
import { planLookup, type LookupArguments } from '../lookup-request';

const LIMITS = { maxTokens: 8000, maxChars: 500_000 };
const anyText = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
const dotted = fc
  .array(fc.oneof(fc.string({ maxLength: 5 }), fc.nat().map(String), fc.constant('')), { maxLength: 70 })
  .map((s) => s.join('.'));
/** RFC 9535-looking text: `$` and pieces of its syntax in any order, valid or not. */
const rfcLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('.', '..', '[', ']', '*', '?', '@', '$', "'", '"', ',', ':', '-1', '0', '3', '==', '<', '!', '&&', '||', '(', ')'),
      fc.constantFrom('length(', 'count(', 'match(', 'value(', 'true', 'null', '\\u0000', 'a', 'price'),
      anyText,
    ),
    { maxLength: 20 },
  )
  .map((parts) => `$${parts.join('')}`);
const pathText = fc.oneof(anyText, dotted, rfcLike, fc.string({ minLength: 250, maxLength: 300 }));
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity));
const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

const recallArguments: fc.Arbitrary<LookupArguments> = fc.record({
  memId: fc.oneof(anyText, fc.constant('mem_aaaaaaaaaaaaaaaa')),
  format: fc.constantFrom('SUMMARY' as const, 'FULL' as const, null),
  query: nullable(anyText),
  offset: nullable(number),
  maxChars: nullable(number),
  jsonPath: nullable(pathText),
  lineStart: nullable(number),
  lineCount: nullable(number),
  maxTokens: nullable(number),
  pattern: nullable(anyText),
  contextLines: nullable(number),
});

describe('recallToolResult arguments, property-based', () => {
  it('R-LG-2 R-OP-4 parseDottedPath never throws: null, or 1 to 64 storable segments of 1 to 256 chars that join back to the path', () => {
    fc.assert(
      fc.property(pathText, (path) => {
        const segments = parseDottedPath(path);
        if (segments === null) return;
        expect(segments.join('.')).toBe(path);
        expect(segments.length).toBeGreaterThanOrEqual(1);
        expect(segments.length).toBeLessThanOrEqual(64);
        for (const segment of segments) {
          expect(segment.length).toBeGreaterThanOrEqual(1);
          expect(segment.length).toBeLessThanOrEqual(256);
          // The segments are a text[] parameter: PostgreSQL text holds no NUL and no lone surrogate.
          expect(isStorableText(segment)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('R-LG-2 R-OP-4 planLookup never throws, and a plan that reaches SQL has sane bounds and a well-formed mem id', () => {
    fc.assert(
      fc.property(recallArguments, (args) => {
        const plan = planLookup(args, LIMITS);
        if (plan.mode === 'answer') {
          expect(plan.text).toMatch(/^\[tool_memory .*\]$/s);
          return;
        }
        expect(args.memId).toMatch(/^mem_[a-z2-7]{16}$/);
        if (plan.mode === 'summary') return;
        if (plan.mode === 'lines' || plan.mode === 'pattern') {
          expect(Number.isSafeInteger(plan.lineStart) && plan.lineStart >= 1).toBe(true);
          expect(typeof plan.calls.lines(plan.lineStart + 1, plan.lineCount)).toBe('string');
          if (plan.mode === 'pattern') {
            expect(plan.pattern.length).toBeLessThanOrEqual(1000);
            expect(Number.isSafeInteger(plan.contextLines) && plan.contextLines >= 0 && plan.contextLines <= 50).toBe(true);
          }
          return;
        }
        expect(Number.isSafeInteger(plan.offset) && plan.offset >= 0).toBe(true);
        expect(Number.isSafeInteger(plan.bounds.maxChars) && plan.bounds.maxChars >= 1).toBe(true);
        expect(plan.bounds.maxChars).toBeLessThanOrEqual(LIMITS.maxChars);
        expect(plan.bounds.maxTokens).toBeLessThanOrEqual(LIMITS.maxTokens);
        expect(typeof plan.nextCall(plan.offset + 1)).toBe('string');
        if (plan.mode === 'path') {
          // What reaches PostgreSQL is text it can hold; the library gets the query as sent.
          const { path } = plan;
          if (path.kind === 'database') {
            const selection = path.selection;
            expect(selection.kind === 'keys' ? selection.keys.every(isStorableText) : isStorableText(selection.sqlPath)).toBe(true);
          }
          expect(Number.isSafeInteger(pathFetchChars(plan.offset + plan.bounds.maxChars))).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('R-LG-2 R-OP-4 sliceBySubstring never throws for any text and query: an answer with matches, or a bracketed text', () => {
    fc.assert(
      fc.property(anyText, anyText, (payload, query) => {
        const answer = sliceBySubstring(payload, query, 'mem_aaaaaaaaaaaaaaaa');
        expect(typeof answer).toBe('string');
        if (answer.startsWith('[tool_memory')) return;
        expect(answer).toMatch(/^\[match 1 of \d+ at offset \d+\]/);
      }),
      { numRuns: 500 },
    );
  });

  it('R-LG-2 compacting any (possibly cut) value text never throws and never grows it', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom('object', 'array', 'string', 'number'), fc.boolean(), (body, kind, complete) => {
        expect(compactJsonbText(body).length).toBeLessThanOrEqual(body.length);
        const { text } = pathValueText({ kind, body, bodyLength: body.length, complete });
        expect(text.length).toBeLessThanOrEqual(body.length);
      }),
      { numRuns: 500 },
    );
  });
});
