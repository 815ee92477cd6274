import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  checkExternalRecallEvent,
  eventQuery,
  type ExternalRecallEventInput,
  MAX_EVENT_JSON_BYTES,
  MAX_EVENT_REFS,
  MAX_QUERY_CHARS,
  MAX_REF_ID_CHARS,
  newRecallEventId,
  normalizeQuery,
  QUERY_TEXT_MAX_CHARS,
  queryFingerprint,
  RECALL_CONTRACT_VERSION,
  type ResultRef,
  ResultRefType,
  storedQueryText,
} from '../recall-event.checks';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** Without the u flag the pattern sees UTF-16 code units: a high surrogate not followed by a low one, or a low one alone. */
const hasLoneSurrogate = (text: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

const refs = (count: number, type = ResultRefType.TOOL_RESULT): ResultRef[] =>
  Array.from({ length: count }, (_, i) => ({ type, id: `ref_${i}`, rank: i + 1 }));
const event = (overrides: Partial<ExternalRecallEventInput> = {}): ExternalRecallEventInput => ({
  spaceId: '00000000-0000-4000-8000-000000000001',
  query: 'invoice totals',
  contractVersion: 'acme.retriever.v3',
  rankingVersion: 'bm25-v2',
  fusionMode: 'rrf',
  searchFreshness: 'eventual',
  degradedBranches: ['graph'],
  results: refs(3),
  semanticGroups: null,
  authoredAlternatives: null,
  clarificationOutcome: null,
  ...overrides,
});
const badInput = (field: string) => expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field } });

describe('normalizeQuery', () => {
  it('R-RC-9 applies NFKC: full-width letters and ligatures fold to their plain forms', () => {
    expect(normalizeQuery('ＡＢＣ')).toBe('abc');
    expect(normalizeQuery('ﬁle')).toBe('file');
    expect(normalizeQuery('Ｈｅｌｌｏ\u3000Ｗｏｒｌｄ１２３')).toBe('hello world123');
    // Composed and decomposed é fingerprint alike.
    expect(normalizeQuery('Cafe\u0301')).toBe(normalizeQuery('Café'));
    expect(normalizeQuery('Cafe\u0301')).toBe('café');
  });

  it('R-RC-9 lower-cases, collapses white-space runs (tabs, newlines, U+3000, NBSP) and trims', () => {
    expect(normalizeQuery('Invoice TOTALS')).toBe('invoice totals');
    expect(normalizeQuery('  a \t\t b\n\nc\r\n d\u3000\u3000e\u00a0f  ')).toBe('a b c d e f');
    expect(normalizeQuery('\t\n\u3000 ')).toBe('');
    expect(normalizeQuery('')).toBe('');
    expect(normalizeQuery('already normal')).toBe('already normal');
  });
});

describe('queryFingerprint', () => {
  it('R-RC-9 is the SHA-256 hex of the normalized text', () => {
    expect(queryFingerprint('abc')).toBe(sha256('abc'));
    expect(queryFingerprint('  ＡＢＣ\tﬁ ')).toBe(sha256('abc fi'));
    expect(queryFingerprint('Invoice\n\nTotals')).toBe(sha256('invoice totals'));
    expect(queryFingerprint('x')).toMatch(/^[0-9a-f]{64}$/);
    expect(queryFingerprint('invoice totals')).not.toBe(queryFingerprint('invoice total'));
  });

  it('R-RC-9 is null for no query: null, undefined, empty or blank', () => {
    expect(queryFingerprint(null)).toBeNull();
    expect(queryFingerprint(undefined)).toBeNull();
    expect(queryFingerprint('')).toBeNull();
    expect(queryFingerprint(' \t\n\u3000\u00a0 ')).toBeNull();
  });

  it('R-RC-9 property: re-spacing and re-casing a query keeps its fingerprint', () => {
    // Letters whose lower case of their upper case is themselves (no ß, no final sigma).
    const word = fc.stringMatching(/^[a-z0-9éñжü]{1,10}$/);
    const space = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u3000', '\u00a0', ' \t\u3000\n');
    const gap = fc.array(space, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
    const edge = fc.array(space, { maxLength: 3 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.record({ word, upper: fc.boolean(), gap }), { minLength: 1, maxLength: 8 }),
        edge,
        edge,
        (words, lead, trail) => {
          const plain = words.map((w) => w.word).join(' ');
          const reshuffled =
            lead + words.map((w, i) => (w.upper ? w.word.toUpperCase() : w.word) + (i < words.length - 1 ? w.gap : '')).join('') + trail;
          expect(queryFingerprint(reshuffled)).toBe(queryFingerprint(plain));
          expect(queryFingerprint(plain.toUpperCase())).toBe(queryFingerprint(plain));
          expect(queryFingerprint(reshuffled)).toBe(sha256(plain));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('storedQueryText', () => {
  it('R-RC-9 is null unless the team opted in, and null without a query', () => {
    expect(storedQueryText('invoice totals', false)).toBeNull();
    expect(storedQueryText(null, true)).toBeNull();
    expect(storedQueryText(undefined, true)).toBeNull();
    expect(storedQueryText(null, false)).toBeNull();
  });

  it('R-RC-9 keeps the raw query as typed when opted in', () => {
    expect(storedQueryText('  Invoice\tTOTALS ', true)).toBe('  Invoice\tTOTALS ');
  });

  it('R-RC-9 is bounded to 500 code points and never splits an astral character', () => {
    expect(QUERY_TEXT_MAX_CHARS).toBe(500);
    expect(storedQueryText('x'.repeat(500), true)).toBe('x'.repeat(500));
    expect(storedQueryText('x'.repeat(501), true)).toBe('x'.repeat(500));
    expect(storedQueryText('y'.repeat(2000), true)).toHaveLength(500);

    const emoji = storedQueryText('😀'.repeat(600), true)!;
    expect(Array.from(emoji)).toHaveLength(500);
    expect(emoji).toBe('😀'.repeat(500));
    expect(hasLoneSurrogate(emoji)).toBe(false);

    // Odd offset: the cut falls where a UTF-16 slice would split the last pair.
    const mixed = storedQueryText(`a${'𝄞'.repeat(600)}`, true)!;
    expect(Array.from(mixed)).toHaveLength(500);
    expect(mixed).toBe(`a${'𝄞'.repeat(499)}`);
    expect(hasLoneSurrogate(mixed)).toBe(false);
  });
});

describe('eventQuery', () => {
  it('R-RC-9 R-TN-10 an event reads a question from its start, at most 2,000 characters, never splitting an astral character', () => {
    expect(MAX_QUERY_CHARS).toBe(2000);
    expect(eventQuery(null)).toBeNull();
    expect(eventQuery(undefined)).toBeNull();
    expect(eventQuery('what did you show me?')).toBe('what did you show me?');
    const question = 'q'.repeat(MAX_QUERY_CHARS);
    expect(eventQuery(`${question}${'pasted '.repeat(1_000_000)}`)).toBe(question);
    // The 2,000th unit is the first half of a pair: the pair is left out whole.
    expect(eventQuery(`${'a'.repeat(1999)}😀tail`)).toBe('a'.repeat(1999));
    // Two long messages with the same start are the same question to the fingerprint.
    expect(queryFingerprint(eventQuery(`${question} one`))).toBe(queryFingerprint(eventQuery(`${question} two`)));
  });

  it('R-RC-9 a long opted-in query is stored as its first 500 code points', () => {
    expect(storedQueryText(`${'😀'.repeat(500)}${'x'.repeat(5_000_000)}`, true)).toBe('😀'.repeat(500));
    expect(storedQueryText(`${'x'.repeat(499)}${'😀'.repeat(10)}`, true)).toBe(`${'x'.repeat(499)}😀`);
  });
});

describe('newRecallEventId', () => {
  it('R-RC-9 is rec_ and a 26-character Crockford base-32 ULID', () => {
    for (let i = 0; i < 100; i += 1) expect(newRecallEventId()).toMatch(/^rec_[0-9A-HJKMNP-TV-Z]{26}$/);
    // rec_ + 26 fits recall_events.id varchar(30).
    expect(newRecallEventId()).toHaveLength(30);
    expect(new Set(Array.from({ length: 1000 }, newRecallEventId)).size).toBe(1000);
  });

  it('R-RC-9 ids increase with time (ULID), so they sort in creation order', () => {
    const start = Date.parse('2026-11-30T01:06:03.000Z');
    let now = start;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const ids: string[] = [];
      for (const step of [0, 1, 2, 1000, 60_000, 86_400_000, 365 * 86_400_000]) {
        now = start + step;
        ids.push(newRecallEventId());
      }
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      // The time part is the first 10 characters: the same millisecond shares it.
      now = start;
      expect(newRecallEventId().slice(0, 14)).toBe(ids[0].slice(0, 14));
    } finally {
      clock.mockRestore();
    }
  });
});

describe('checkExternalRecallEvent', () => {
  it('R-RC-11 accepts a well-formed event, and an empty result list', () => {
    expect(() => checkExternalRecallEvent(event())).not.toThrow();
    expect(() => checkExternalRecallEvent(event({ results: [], query: null, degradedBranches: null, rankingVersion: null }))).not.toThrow();
    expect(() => checkExternalRecallEvent(event({ contractVersion: RECALL_CONTRACT_VERSION }))).not.toThrow();
  });

  it('R-RC-11 holds at most 50 refs: 51 is BAD_USER_INPUT naming input.results', () => {
    expect(MAX_EVENT_REFS).toBe(50);
    expect(() => checkExternalRecallEvent(event({ results: refs(50) }))).not.toThrow();
    expect(() => checkExternalRecallEvent(event({ results: refs(51) }))).toThrow(badInput('input.results'));
    expect(() => checkExternalRecallEvent(event({ results: refs(51) }))).toThrow('at most 50');
  });

  it('R-RC-11 a ref id is 1 to 256 characters, the error naming input.results.N.id', () => {
    expect(MAX_REF_ID_CHARS).toBe(256);
    const withId = (index: number, id: string) => event({ results: refs(3).map((ref, i) => (i === index ? { ...ref, id } : ref)) });
    expect(() => checkExternalRecallEvent(withId(0, 'i'.repeat(256)))).not.toThrow();
    expect(() => checkExternalRecallEvent(withId(0, 'i'.repeat(257)))).toThrow(badInput('input.results.0.id'));
    expect(() => checkExternalRecallEvent(withId(2, 'i'.repeat(257)))).toThrow(badInput('input.results.2.id'));
    expect(() => checkExternalRecallEvent(withId(1, ''))).toThrow(badInput('input.results.1.id'));
  });

  it('R-RC-11 a rank is a whole number from 1, the error naming .rank', () => {
    const withRank = (rank: number) =>
      event({
        results: [
          { type: ResultRefType.TOOL_RESULT, id: 'a', rank: 1 },
          { type: ResultRefType.ENTITY, id: 'b', rank },
        ],
      });
    expect(() => checkExternalRecallEvent(withRank(2))).not.toThrow();
    expect(() => checkExternalRecallEvent(withRank(1))).not.toThrow();
    for (const rank of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => checkExternalRecallEvent(withRank(rank))).toThrow(badInput('input.results.1.rank'));
    }
  });

  it('R-RC-11 a (type, id) pair is listed once; the same id under another type is fine', () => {
    const dup = event({
      results: [
        { type: ResultRefType.TOOL_RESULT, id: 'x', rank: 1 },
        { type: ResultRefType.EVIDENCE, id: 'x', rank: 2 },
        { type: ResultRefType.TOOL_RESULT, id: 'x', rank: 3 },
      ],
    });
    expect(() => checkExternalRecallEvent(dup)).toThrow(badInput('input.results.2.id'));
    expect(() => checkExternalRecallEvent(dup)).toThrow('repeats TOOL_RESULT x');
    const types = Object.values(ResultRefType).map((type, i) => ({ type, id: 'same', rank: i + 1 }));
    expect(() => checkExternalRecallEvent(event({ results: types }))).not.toThrow();
  });

  it.each(['contractVersion', 'rankingVersion', 'fusionMode', 'searchFreshness', 'clarificationOutcome'] as const)(
    'R-RC-11 label %s is at most 64 characters, the error naming the field',
    (name) => {
      expect(() => checkExternalRecallEvent(event({ [name]: 'l'.repeat(64) }))).not.toThrow();
      expect(() => checkExternalRecallEvent(event({ [name]: 'l'.repeat(65) }))).toThrow(badInput(`input.${name}`));
      expect(() => checkExternalRecallEvent(event({ [name]: '' }))).toThrow(badInput(`input.${name}`));
    },
  );

  it('R-RC-11 at most 20 degraded branches of 1 to 64 characters', () => {
    const branches = (n: number, length = 8) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(length, 'b'));
    expect(() => checkExternalRecallEvent(event({ degradedBranches: branches(20, 64) }))).not.toThrow();
    expect(() => checkExternalRecallEvent(event({ degradedBranches: branches(21) }))).toThrow(badInput('input.degradedBranches'));
    expect(() => checkExternalRecallEvent(event({ degradedBranches: branches(1, 65) }))).toThrow(badInput('input.degradedBranches'));
    expect(() => checkExternalRecallEvent(event({ degradedBranches: [''] }))).toThrow(badInput('input.degradedBranches'));
  });

  it.each(['semanticGroups', 'authoredAlternatives'] as const)(
    'R-RC-11 %s is at most 16 KiB serialized, in bytes; exactly at the limit is fine',
    (name) => {
      expect(MAX_EVENT_JSON_BYTES).toBe(16 * 1024);
      // A JSON string: the text plus two quotes.
      const atLimit = 'g'.repeat(MAX_EVENT_JSON_BYTES - 2);
      expect(Buffer.byteLength(JSON.stringify(atLimit))).toBe(MAX_EVENT_JSON_BYTES);
      expect(() => checkExternalRecallEvent(event({ [name]: atLimit }))).not.toThrow();
      expect(() => checkExternalRecallEvent(event({ [name]: `${atLimit}g` }))).toThrow(badInput(`input.${name}`));
      expect(() => checkExternalRecallEvent(event({ [name]: `${atLimit}g` }))).toThrow(`${MAX_EVENT_JSON_BYTES + 1} bytes`);
      // Bytes, not characters: 8,192 two-byte characters are 16,386 bytes with the quotes.
      expect(() => checkExternalRecallEvent(event({ [name]: 'é'.repeat(8191) }))).not.toThrow();
      expect(() => checkExternalRecallEvent(event({ [name]: 'é'.repeat(8192) }))).toThrow(badInput(`input.${name}`));
      // A realistic structure over the limit.
      const groups = Array.from({ length: 300 }, (_, i) => ({ label: `group ${i}`, refs: refs(5).map((r) => r.id) }));
      expect(Buffer.byteLength(JSON.stringify(groups))).toBeGreaterThan(MAX_EVENT_JSON_BYTES);
      expect(() => checkExternalRecallEvent(event({ [name]: groups }))).toThrow(badInput(`input.${name}`));
    },
  );

  it('R-RC-11 a query is at most 2000 characters', () => {
    expect(() => checkExternalRecallEvent(event({ query: 'q'.repeat(2000) }))).not.toThrow();
    expect(() => checkExternalRecallEvent(event({ query: 'q'.repeat(2001) }))).toThrow(badInput('input.query'));
  });

  it('R-RC-11 names fields under the prefix it is given', () => {
    expect(() => checkExternalRecallEvent(event({ results: refs(51) }), 'event')).toThrow(badInput('event.results'));
    expect(() => checkExternalRecallEvent(event({ fusionMode: 'f'.repeat(65) }), 'event')).toThrow(badInput('event.fusionMode'));
  });
});
