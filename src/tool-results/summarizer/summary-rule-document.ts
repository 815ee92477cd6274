import { jsonLongerThan } from '../../common/text/json-text';
import { codePointLength, isStorableText } from '../../common/text/storable-text';
import { elide, isRecord } from '../../common/text/text-bounds';
import type { RuleCondition, SummaryPart, SummaryRule, SummaryRuleDocument } from './summary-rule.types';

/*
 * Bounds of a summary rule document (R-RC-3). They keep a document small enough to read on
 * every write of its tool; its evaluation is bounded by the row budget below, whatever the
 * document and the payload.
 */
/** The whole document, as JSON text. */
export const MAX_RULE_DOCUMENT_CHARS = 4096;
export const MAX_RULES_PER_DOCUMENT = 8;
export const MAX_PARTS_PER_RULE = 8;
export const MAX_WHEN_KEYS = 8;
/** Any string of a document: a label, a key, a path, a `when` value. */
export const MAX_RULE_STRING_CHARS = 200;
export const MAX_PATH_SEGMENTS = 16;
/**
 * Row visits one summary's rules may cost (R-RC-3, R-TN-10): each maxDate or topBy part is charged
 * the rows it scans, every other part 1, before it runs. Rules past it leave the summary to the
 * generic summarizer, counted in `tool_results_summary_rule_fallbacks_total{reason="over_budget"}`.
 * About 40 ms of the slowest rows (ISO timestamps with zones) on one core; the same number
 * everywhere, so an output gets the same summary on every replica, in place or on a worker thread.
 */
export const SUMMARY_RULE_ROW_BUDGET = 100_000;
/** Documents a team may hold, one per tool. */
export const MAX_RULE_DOCUMENTS_PER_TEAM = 100;
/** As `recordToolResults` takes a tool name. */
const MAX_TOOL_NAME_CHARS = 128;

const PART_KINDS = ['count', 'maxDate', 'topBy', 'seriesLength', 'percentChange'] as const;
type PartKind = SummaryPart['kind'];

/** The keys each kind takes besides `kind`, `path` and `optional`. */
const PART_KEYS: { readonly [K in PartKind]: readonly string[] } = {
  count: ['label', 'singular'],
  maxDate: ['field', 'label'],
  topBy: ['orderBy', 'nameField', 'suffix'],
  seriesLength: ['unitPath', 'label'],
  percentChange: ['field'],
};

/** A document's check: the typed document, or its first problem, `message` naming the place and what to change. */
export type DocumentCheck = { ok: true; document: SummaryRuleDocument } | { ok: false; path: string; message: string };

class RuleProblem extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/**
 * Checks a summary rule document (R-RC-3) as a client sent it: `{ "version": 1, "rules": [...] }`,
 * each rule `{ "when"?: {<input key>: string|number|boolean|null}, "parts": [...] }`. Unknown
 * keys, wrong types, empty or overlong strings and anything past the bounds are refused, the
 * first one named by its place under `root` (e.g. `rule.rules[0].parts[1].kind`). Pure.
 */
export function checkSummaryRuleDocument(value: unknown, root = 'rule'): DocumentCheck {
  try {
    return { ok: true, document: readDocument(value, root) };
  } catch (error) {
    if (error instanceof RuleProblem) return { ok: false, path: error.path, message: error.message };
    throw error;
  }
}

/** What is wrong with a tool name a document is for, or null. */
export function toolNameProblem(name: string): string | null {
  if (name.length === 0 || codePointLength(name) > MAX_TOOL_NAME_CHARS || /\s/.test(name)) {
    return `toolName must be 1 to ${MAX_TOOL_NAME_CHARS} characters without white space, as recordToolResults takes it.`;
  }
  return isStorableText(name) ? null : 'toolName contains a NUL character or an unpaired surrogate; remove it.';
}

function readDocument(value: unknown, path: string): SummaryRuleDocument {
  // First, so that nothing below walks more than a few kilobytes.
  if (jsonLongerThan(value, MAX_RULE_DOCUMENT_CHARS)) {
    throw new RuleProblem(path, `longer than ${MAX_RULE_DOCUMENT_CHARS} characters of JSON; use fewer or shorter rules`);
  }
  const document = objectAt(value, path, 'an object {"version": 1, "rules": [...]}');
  onlyKeys(document, path, ['version', 'rules'], 'a document');
  if (document.version !== 1) {
    const reason = document.version === undefined ? 'required; set it to 1' : `unknown version ${brief(document.version)}; use 1`;
    throw new RuleProblem(`${path}.version`, reason);
  }
  const rules = listAt(document.rules, `${path}.rules`, MAX_RULES_PER_DOCUMENT, 'rules');
  return { version: 1, rules: rules.map((rule, index) => readRule(rule, `${path}.rules[${index}]`)) };
}

function readRule(value: unknown, path: string): SummaryRule {
  const rule = objectAt(value, path, 'an object {"when"?: {...}, "parts": [...]}');
  onlyKeys(rule, path, ['when', 'parts'], 'a rule');
  const parts = listAt(rule.parts, `${path}.parts`, MAX_PARTS_PER_RULE, 'parts').map((part, index) =>
    readPart(part, `${path}.parts[${index}]`),
  );
  return Object.hasOwn(rule, 'when') ? { when: readCondition(rule.when, `${path}.when`), parts } : { parts };
}

function readCondition(value: unknown, path: string): RuleCondition {
  const when = objectAt(value, path, 'an object of top-level input keys and the values they must equal; omit it to match any input');
  const keys = Object.keys(when);
  if (keys.length === 0 || keys.length > MAX_WHEN_KEYS) {
    throw new RuleProblem(path, `must name 1 to ${MAX_WHEN_KEYS} input keys (it names ${keys.length}); omit it to match any input`);
  }
  // Entries, not assignment: a key such as "__proto__" stays a key.
  return Object.fromEntries(
    keys.map((key): [string, RuleCondition[string]] => {
      const at = memberPath(path, key);
      textAt(key, at, 'required');
      const expected = when[key];
      if (typeof expected === 'string') return [key, textAt(expected, at, 'required', true)];
      if (expected === null || typeof expected === 'boolean' || typeof expected === 'number') return [key, expected];
      throw new RuleProblem(at, `must be a string, number, boolean or null (compared with the input's value), not ${typeName(expected)}`);
    }),
  );
}

function readPart(value: unknown, path: string): SummaryPart {
  const part = objectAt(value, path, 'an object with a "kind", a "path" and the keys of its kind');
  const kind = part.kind;
  if (!isPartKind(kind)) {
    const reason = kind === undefined ? 'required' : `unknown kind ${brief(kind)}`;
    throw new RuleProblem(`${path}.kind`, `${reason}; use one of ${PART_KINDS.join(', ')}`);
  }
  onlyKeys(part, path, ['kind', 'path', ...PART_KEYS[kind], 'optional'], `a ${kind} part`);
  const needs = `required in a ${kind} part`;
  const text = (key: string): string => textAt(part[key], `${path}.${key}`, needs);
  const rowKey = (key: string): string => textAt(part[key], `${path}.${key}`, `${needs} (a key of each row)`);
  const base = { path: pathAt(part.path, `${path}.path`, needs), ...optionalFlag(part, path) };
  switch (kind) {
    case 'count':
      return { kind, ...base, label: text('label'), ...(Object.hasOwn(part, 'singular') ? { singular: text('singular') } : {}) };
    case 'maxDate':
      return { kind, ...base, field: rowKey('field'), label: text('label') };
    case 'topBy':
      return { kind, ...base, orderBy: rowKey('orderBy'), nameField: rowKey('nameField'), suffix: text('suffix') };
    case 'seriesLength':
      return { kind, ...base, unitPath: pathAt(part.unitPath, `${path}.unitPath`, needs), label: text('label') };
    case 'percentChange':
      return { kind, ...base, field: rowKey('field') };
  }
}

function isPartKind(kind: unknown): kind is PartKind {
  return PART_KINDS.some((known) => known === kind);
}

function optionalFlag(part: Record<string, unknown>, path: string): { optional?: boolean } {
  if (!Object.hasOwn(part, 'optional')) return {};
  if (typeof part.optional !== 'boolean')
    throw new RuleProblem(`${path}.optional`, `must be true or false, not ${typeName(part.optional)}`);
  return { optional: part.optional };
}

/** Dot-separated keys from the root of the output; '' is the output itself. */
function pathAt(value: unknown, path: string, missing: string): string {
  const text = textAt(value, path, missing, true);
  if (text === '') return text;
  const segments = text.split('.');
  if (segments.length > MAX_PATH_SEGMENTS) {
    throw new RuleProblem(path, `has ${segments.length} dot-separated keys; at most ${MAX_PATH_SEGMENTS}`);
  }
  if (segments.includes(''))
    throw new RuleProblem(path, 'has an empty key; separate keys with single dots, or use "" for the whole output');
  return text;
}

function textAt(value: unknown, path: string, missing: string, allowEmpty = false): string {
  if (value === undefined) throw new RuleProblem(path, missing);
  if (typeof value !== 'string') throw new RuleProblem(path, `must be a string, not ${typeName(value)}`);
  if (!allowEmpty && value.length === 0) throw new RuleProblem(path, 'must not be empty');
  const length = codePointLength(value);
  if (length > MAX_RULE_STRING_CHARS) throw new RuleProblem(path, `is ${length} characters; at most ${MAX_RULE_STRING_CHARS}`);
  if (!isStorableText(value)) throw new RuleProblem(path, 'contains a NUL character or an unpaired surrogate; remove it');
  return value;
}

function objectAt(value: unknown, path: string, shape: string): Record<string, unknown> {
  if (!isRecord(value)) throw new RuleProblem(path, `must be ${shape}, not ${typeName(value)}`);
  return value;
}

function listAt(value: unknown, path: string, max: number, noun: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new RuleProblem(path, value === undefined ? `required: a list of 1 to ${max} ${noun}` : `must be a list, not ${typeName(value)}`);
  }
  if (value.length === 0 || value.length > max) throw new RuleProblem(path, `must hold 1 to ${max} ${noun}; it holds ${value.length}`);
  return value as unknown[];
}

function onlyKeys(record: Record<string, unknown>, path: string, allowed: readonly string[], what: string): void {
  const unknown = Object.keys(record).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new RuleProblem(memberPath(path, unknown), `unknown key; ${what} takes ${allowed.join(', ')}`);
}

/** `path.key`, or `path["odd key"]` for a key that is not a plain name; a long key elided. */
function memberPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(elide(key, 40))}]`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return typeof value === 'undefined' ? 'nothing' : `a ${typeof value}`;
}

function brief(value: unknown): string {
  return elide(JSON.stringify(value) ?? String(value), 40);
}
