import {
  checkSummaryRuleDocument,
  type DocumentCheck,
  MAX_PARTS_PER_RULE,
  MAX_PATH_SEGMENTS,
  MAX_RULE_DOCUMENT_CHARS,
  MAX_RULE_DOCUMENTS_PER_TEAM,
  MAX_RULE_STRING_CHARS,
  MAX_RULES_PER_DOCUMENT,
  MAX_WHEN_KEYS,
  toolNameProblem,
} from '../summary-rule-document';

const KINDS = 'use one of count, maxDate, topBy, seriesLength, percentChange';

/** A document with one rule holding these parts. */
const withParts = (...parts: unknown[]) => ({ version: 1, rules: [{ parts }] });
const count = { kind: 'count', path: 'orders', label: 'orders' };

/** The problem of a refused document: its path and message. */
function problemOf(check: DocumentCheck): { path: string; message: string } {
  if (check.ok) throw new Error(`expected a problem, the document passed: ${JSON.stringify(check.document)}`);
  return { path: check.path, message: check.message };
}

const refusal = (value: unknown) => problemOf(checkSummaryRuleDocument(value));

/** A valid document of exactly `chars` characters of JSON: 8 rules of 3 count parts, labels padded. */
function documentOfLength(chars: number) {
  const rules = Array.from({ length: 8 }, () => ({ parts: Array.from({ length: 3 }, () => ({ ...count, label: 'x' })) }));
  const document = { version: 1, rules };
  let missing = chars - JSON.stringify(document).length;
  for (const part of rules.flatMap((rule) => rule.parts)) {
    const added = Math.min(missing, MAX_RULE_STRING_CHARS - 1);
    part.label += 'x'.repeat(added);
    missing -= added;
  }
  expect(JSON.stringify(document)).toHaveLength(chars);
  return document;
}

describe('checkSummaryRuleDocument', () => {
  it('R-RC-3 accepts every kind of part, conditions of every JSON scalar and the root path, and returns the document as typed', () => {
    const document = {
      version: 1,
      rules: [
        {
          when: { scope: 'open', page: 1, archived: false, region: null, ['__proto__']: 'kept', 'odd key': '' },
          parts: [
            { kind: 'count', path: 'data.orders', label: 'orders', singular: 'order' },
            { kind: 'maxDate', path: 'data.orders', field: 'placed_at', label: 'latest', optional: true },
            { kind: 'topBy', path: 'data.orders', orderBy: 'total', nameField: 'customer', suffix: 'EUR', optional: false },
          ],
        },
        {
          parts: [
            { kind: 'seriesLength', path: '', unitPath: 'meta.unit', label: 'trend' },
            { kind: 'percentChange', path: '', field: 'value' },
          ],
        },
      ],
    };
    const check = checkSummaryRuleDocument(JSON.parse(JSON.stringify(document)));
    expect(check).toEqual({ ok: true, document });
    // "__proto__" stays an own key of the condition: it never becomes the object's prototype.
    const when = check.ok ? check.document.rules[0].when : undefined;
    expect(when && Object.hasOwn(when, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(when)).toBe(Object.prototype);
  });

  it('R-RC-3 names an unknown kind and lists the known ones', () => {
    expect(refusal(withParts(count, { kind: 'sum', path: 'orders', field: 'total' }))).toEqual({
      path: 'rule.rules[0].parts[1].kind',
      message: `rule.rules[0].parts[1].kind: unknown kind "sum"; ${KINDS}`,
    });
    expect(refusal(withParts({ path: 'orders', label: 'orders' }))).toEqual({
      path: 'rule.rules[0].parts[0].kind',
      message: `rule.rules[0].parts[0].kind: required; ${KINDS}`,
    });
    expect(refusal(withParts({ ...count, kind: 7 })).message).toBe(`rule.rules[0].parts[0].kind: unknown kind 7; ${KINDS}`);
  });

  it.each([
    ['count', 'label', { kind: 'count', path: 'a' }],
    ['maxDate', 'field', { kind: 'maxDate', path: 'a', label: 'latest' }],
    ['topBy', 'nameField', { kind: 'topBy', path: 'a', orderBy: 'n', suffix: 'x' }],
    ['seriesLength', 'unitPath', { kind: 'seriesLength', path: 'a', label: 'trend' }],
    ['percentChange', 'field', { kind: 'percentChange', path: 'a' }],
    ['count', 'path', { kind: 'count', label: 'orders' }],
  ])('R-RC-3 a %s part without its %s is named', (kind, missing, part) => {
    const { path, message } = refusal(withParts(part));
    expect(path).toBe(`rule.rules[0].parts[0].${missing}`);
    expect(message).toMatch(new RegExp(`^rule\\.rules\\[0\\]\\.parts\\[0\\]\\.${missing}: required in a ${kind} part`));
  });

  it('R-RC-3 names an unknown key of a part with the keys its kind takes', () => {
    expect(refusal(withParts({ kind: 'count', path: 'a', lable: 'orders' }))).toEqual({
      path: 'rule.rules[0].parts[0].lable',
      message: 'rule.rules[0].parts[0].lable: unknown key; a count part takes kind, path, label, singular, optional',
    });
    // A key of another kind is unknown too.
    expect(refusal(withParts({ ...count, field: 'x' })).path).toBe('rule.rules[0].parts[0].field');
    expect(refusal(withParts({ ...count, 'a b': 1 })).path).toBe('rule.rules[0].parts[0]["a b"]');
  });

  it('R-RC-3 names wrong types, empty, overlong and unstorable strings', () => {
    const cases: [unknown, string, string][] = [
      [{ ...count, label: 3 }, 'label', 'must be a string, not a number'],
      [{ ...count, label: '' }, 'label', 'must not be empty'],
      [{ ...count, label: 'x'.repeat(MAX_RULE_STRING_CHARS + 1) }, 'label', 'is 201 characters; at most 200'],
      [{ ...count, label: 'a\u0000b' }, 'label', 'contains a NUL character or an unpaired surrogate; remove it'],
      [{ ...count, singular: null }, 'singular', 'must be a string, not null'],
      [{ ...count, optional: 'yes' }, 'optional', 'must be true or false, not a string'],
      [{ kind: 'maxDate', path: 'a', field: '', label: 'l' }, 'field', 'must not be empty'],
      [{ kind: 'topBy', path: 'a', orderBy: ['n'], nameField: 'm', suffix: 's' }, 'orderBy', 'must be a string, not a list'],
      [{ ...count, path: 'a..b' }, 'path', 'has an empty key; separate keys with single dots, or use "" for the whole output'],
      [{ ...count, path: 'a.'.repeat(MAX_PATH_SEGMENTS) + 'a' }, 'path', 'has 17 dot-separated keys; at most 16'],
      [{ kind: 'seriesLength', path: 'a', unitPath: {}, label: 'l' }, 'unitPath', 'must be a string, not an object'],
    ];
    for (const [part, key, reason] of cases) {
      expect(refusal(withParts(part))).toEqual({
        path: `rule.rules[0].parts[0].${key}`,
        message: `rule.rules[0].parts[0].${key}: ${reason}`,
      });
    }
    // At the bounds: accepted.
    const atBounds = { ...count, path: Array.from({ length: MAX_PATH_SEGMENTS }, () => 'k').join('.'), label: 'x'.repeat(200) };
    expect(checkSummaryRuleDocument(withParts(atBounds)).ok).toBe(true);
    // Characters are code points, as PostgreSQL counts them: 200 emoji are 400 UTF-16 units.
    expect(checkSummaryRuleDocument(withParts({ ...count, label: '😀'.repeat(200) })).ok).toBe(true);
  });

  it('R-RC-3 names what is wrong with the document, a rule or a condition', () => {
    const cases: [unknown, string, string][] = [
      ['{"version": 1}', 'rule', 'must be an object {"version": 1, "rules": [...]}, not a string'],
      [[], 'rule', 'must be an object {"version": 1, "rules": [...]}, not a list'],
      [null, 'rule', 'must be an object {"version": 1, "rules": [...]}, not null'],
      [{ ...withParts(count), owner: 'me' }, 'rule.owner', 'unknown key; a document takes version, rules'],
      [{ rules: [{ parts: [count] }] }, 'rule.version', 'required; set it to 1'],
      [{ ...withParts(count), version: 2 }, 'rule.version', 'unknown version 2; use 1'],
      [{ ...withParts(count), version: '1' }, 'rule.version', 'unknown version "1"; use 1'],
      [{ version: 1 }, 'rule.rules', 'required: a list of 1 to 8 rules'],
      [{ version: 1, rules: {} }, 'rule.rules', 'must be a list, not an object'],
      [{ version: 1, rules: [] }, 'rule.rules', 'must hold 1 to 8 rules; it holds 0'],
      [{ version: 1, rules: Array.from({ length: 9 }, () => ({ parts: [count] })) }, 'rule.rules', 'must hold 1 to 8 rules; it holds 9'],
      [{ version: 1, rules: ['count'] }, 'rule.rules[0]', 'must be an object {"when"?: {...}, "parts": [...]}, not a string'],
      [{ version: 1, rules: [{ parts: [count], tool: 'x' }] }, 'rule.rules[0].tool', 'unknown key; a rule takes when, parts'],
      [{ version: 1, rules: [{ parts: [] }] }, 'rule.rules[0].parts', 'must hold 1 to 8 parts; it holds 0'],
      [withParts(...Array.from({ length: 9 }, () => count)), 'rule.rules[0].parts', 'must hold 1 to 8 parts; it holds 9'],
      [withParts('count'), 'rule.rules[0].parts[0]', 'must be an object with a "kind", a "path" and the keys of its kind, not a string'],
    ];
    for (const [document, path, reason] of cases) expect(refusal(document)).toEqual({ path, message: `${path}: ${reason}` });

    const withWhen = (when: unknown) => ({ version: 1, rules: [{ when, parts: [count] }] });
    const nineKeys = Object.fromEntries(Array.from({ length: MAX_WHEN_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    const whenCases: [unknown, string, string][] = [
      [
        null,
        'rule.rules[0].when',
        'must be an object of top-level input keys and the values they must equal; omit it to match any input, not null',
      ],
      [{}, 'rule.rules[0].when', 'must name 1 to 8 input keys (it names 0); omit it to match any input'],
      [nineKeys, 'rule.rules[0].when', 'must name 1 to 8 input keys (it names 9); omit it to match any input'],
      [
        { target: ['a'] },
        'rule.rules[0].when.target',
        "must be a string, number, boolean or null (compared with the input's value), not a list",
      ],
      [
        { target: { a: 1 } },
        'rule.rules[0].when.target',
        "must be a string, number, boolean or null (compared with the input's value), not an object",
      ],
      [{ '': 'x' }, 'rule.rules[0].when[""]', 'must not be empty'],
      [{ target: 'x'.repeat(201) }, 'rule.rules[0].when.target', 'is 201 characters; at most 200'],
    ];
    for (const [when, path, reason] of whenCases) expect(refusal(withWhen(when))).toEqual({ path, message: `${path}: ${reason}` });
  });

  it('R-RC-3 refuses a document over 4,096 characters of JSON before reading it', () => {
    expect(checkSummaryRuleDocument(documentOfLength(MAX_RULE_DOCUMENT_CHARS)).ok).toBe(true);
    expect(refusal(documentOfLength(MAX_RULE_DOCUMENT_CHARS + 1))).toEqual({
      path: 'rule',
      message: 'rule: longer than 4096 characters of JSON; use fewer or shorter rules',
    });
    // Size first: a huge value of the wrong shape costs no walk of its own.
    expect(refusal({ version: 1, rules: 'x'.repeat(1_000_000) }).path).toBe('rule');
  });

  it('R-RC-3 names problems under the root it is given', () => {
    expect(problemOf(checkSummaryRuleDocument(withParts({ kind: 'sum' }), 'built-in query_kpi_trend')).path).toBe(
      'built-in query_kpi_trend.rules[0].parts[0].kind',
    );
  });

  it('R-RC-3 the bounds are the documented ones', () => {
    expect({
      MAX_RULE_DOCUMENT_CHARS,
      MAX_RULES_PER_DOCUMENT,
      MAX_PARTS_PER_RULE,
      MAX_WHEN_KEYS,
      MAX_RULE_STRING_CHARS,
      MAX_PATH_SEGMENTS,
      MAX_RULE_DOCUMENTS_PER_TEAM,
    }).toEqual({
      MAX_RULE_DOCUMENT_CHARS: 4096,
      MAX_RULES_PER_DOCUMENT: 8,
      MAX_PARTS_PER_RULE: 8,
      MAX_WHEN_KEYS: 8,
      MAX_RULE_STRING_CHARS: 200,
      MAX_PATH_SEGMENTS: 16,
      MAX_RULE_DOCUMENTS_PER_TEAM: 100,
    });
  });
});

describe('toolNameProblem', () => {
  it('R-RC-3 takes tool names as recordToolResults does', () => {
    expect(toolNameProblem('search_orders')).toBeNull();
    expect(toolNameProblem('t'.repeat(128))).toBeNull();
    const shape = 'toolName must be 1 to 128 characters without white space, as recordToolResults takes it.';
    expect(toolNameProblem('')).toBe(shape);
    expect(toolNameProblem('t'.repeat(129))).toBe(shape);
    expect(toolNameProblem('search orders')).toBe(shape);
    expect(toolNameProblem('search\u0000')).toBe('toolName contains a NUL character or an unpaired surrogate; remove it.');
  });
});
