import { countTokensByLine } from '../../common/text/tokenizer';
import { DEFAULT_ANSWER_MAX_TOKENS } from '../../config/setting-defaults';
import type { StubSource } from './tool-result-handle';
import { CodePointPrefixes, toSingleLine } from '../../common/text/text-bounds';

/**
 * v2: a payload over the answer bound gets a re-expand line leading with the keyed ways and its
 * size in tokens. v3: json_path advice in RFC 9535 form; a multi-line text payload names its
 * line count and the line-range way. Stubs are stored, so a snapshot keeps the version it was
 * first given.
 */
const STUB_FORMAT_VERSION = 'v3';
/** Every stub starts with this; compaction uses it to recognise results it already replaced. */
const STUB_MARKER_PREFIX = '[recall-ledger tool_memory ';
export const STUB_MARKER = `${STUB_MARKER_PREFIX}${STUB_FORMAT_VERSION}]`;
export const STUB_MAX_TOKENS = 120;

export interface StubOptions {
  /** Lookup answers are windowed to this many tokens; a larger payload is re-expanded by key first. */
  answerMaxTokens: number;
}

type FieldName = 'toolName' | 'memId' | 'summary' | 'schema' | 'preview';

interface FitStep {
  field: FieldName;
  /** Fewest code points the step may leave; an optional line that cannot keep them is dropped. */
  floor: number;
}

// Caps applied before any token counting, so a huge field costs nothing to tokenize.
const CHAR_CAPS: Readonly<Record<FieldName, number>> = {
  toolName: 64,
  memId: 64,
  summary: 240,
  schema: 160,
  preview: 120,
};

const OPTIONAL_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>(['schema', 'preview']);

// Shrink order when the stub is over budget: the optional lines first, then the summary down to
// a useful length, then identifiers only adversarial input makes long. The mem id goes last: a
// real one (20 chars) always fits once everything else is minimal, and the last step guarantees it.
const FIT_STEPS: readonly FitStep[] = [
  { field: 'preview', floor: 16 },
  { field: 'schema', floor: 24 },
  { field: 'summary', floor: 60 },
  { field: 'toolName', floor: 24 },
  { field: 'summary', floor: 12 },
  { field: 'toolName', floor: 0 },
  { field: 'summary', floor: 0 },
  { field: 'memId', floor: 24 },
  { field: 'memId', floor: 0 },
];

/** Each field plus how many of its code points are kept (`null` once an optional line is dropped). */
type FieldState = Record<FieldName, { points: CodePointPrefixes; keep: number | null }>;

/**
 * The text that replaces a tool result on the wire. A pure function of the handle — no clock, no
 * randomness — so the same handle gives the same bytes in every process, and the prompt-cache
 * prefix holding it stays stable. Always ≤ {@link STUB_MAX_TOKENS} tokens (o200k).
 */
export function renderStub(handle: StubSource, options: StubOptions = { answerMaxTokens: DEFAULT_ANSWER_MAX_TOKENS }): string {
  const state = initialState(handle);
  const chars = countText(handle.sizeChars);
  const large = Number.isSafeInteger(handle.sizeTokens) && handle.sizeTokens > options.answerMaxTokens;
  const lines = handle.textLines ?? null;
  const size = `${chars} chars${lines !== null ? `, ${countText(lines)} lines` : ''}${large ? `, ${countText(handle.sizeTokens)} tokens` : ''}`;
  const render = (): string => renderLines(state, size, large ? options.answerMaxTokens : null, lines !== null);
  // Each attempt below changes one line: the other lines' counts are reused.
  const counted = new Map<string, number>();
  const fits = (stub: string): boolean => countTokensByLine(stub, counted) <= STUB_MAX_TOKENS;
  let stub = render();
  for (const step of FIT_STEPS) {
    if (fits(stub)) break;
    shrinkField(state, step, render, fits);
    stub = render();
  }
  return stub;
}

/** True for text that is already one of our stubs (any format version). */
export function isToolResultStub(text: string): boolean {
  return text.startsWith(STUB_MARKER_PREFIX);
}

function countText(value: number): string {
  return Number.isSafeInteger(value) && value >= 0 ? String(value) : '?';
}

function initialState(handle: StubSource): FieldState {
  const raw: Record<FieldName, string> = {
    toolName: handle.toolName,
    memId: handle.memId,
    summary: handle.summaryOneliner,
    schema: handle.schemaHint ?? '',
    preview: handle.headPreview ?? '',
  };
  const state = {} as FieldState;
  for (const field of Object.keys(CHAR_CAPS) as FieldName[]) {
    const points = new CodePointPrefixes(toSingleLine(String(raw[field] ?? '')));
    const empty = points.length === 0 && OPTIONAL_FIELDS.has(field);
    const capped = points.length <= CHAR_CAPS[field] ? points.length : CHAR_CAPS[field] - 1;
    state[field] = { points, keep: empty ? null : capped };
  }
  return state;
}

function text(state: FieldState, field: FieldName): string | null {
  const { points, keep } = state[field];
  return keep === null ? null : points.keep(keep);
}

/** `answerBound` is set for a payload over the answer bound: the keyed ways come first. `byLine`: a multi-line text. */
function renderLines(state: FieldState, size: string, answerBound: number | null, byLine: boolean): string {
  const schema = text(state, 'schema');
  const preview = text(state, 'preview');
  const summary = text(state, 'summary') || '(none)';
  // No call id: the tool_result block keeps its tool_use_id, so the tokens go to the schema.
  const lines = [STUB_MARKER, `tool=${text(state, 'toolName')}`];
  lines.push(`size_original=${size}`);
  if (schema !== null) lines.push(`schema: ${schema}`);
  lines.push(`summary: ${summary}`);
  if (preview !== null) lines.push(`preview: ${preview}`);
  const memId = text(state, 'memId');
  if (answerBound === null) {
    lines.push(
      `re-expand: recall_tool_result(mem_id='${memId}', format="full"); ` +
        `slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<$.a[0].b>${byLine ? ' | line_start=<n>, line_count=<n>' : ''}`,
    );
  } else {
    lines.push(
      `re-expand by key: recall_tool_result(mem_id='${memId}', json_path=<$.a[0].b> | ${byLine ? 'line_start=<n> | ' : ''}query=<text> | offset=<n>); ` +
        `format="full" pages ${answerBound} tokens from offset=0`,
    );
  }
  return lines.join('\n');
}

/** Keeps the longest prefix of one field (not below the floor) that makes the stub fit. */
function shrinkField(state: FieldState, step: FitStep, render: () => string, fits: (stub: string) => boolean): void {
  const entry = state[step.field];
  if (entry.keep === null) return;
  const optional = OPTIONAL_FIELDS.has(step.field);
  if (entry.keep <= step.floor) {
    // Already short, yet the stub is over budget: an optional line goes, a required one stays.
    if (optional) entry.keep = null;
    return;
  }
  const attempt = (keep: number): boolean => {
    entry.keep = keep;
    return fits(render());
  };
  const current = entry.keep;
  if (!attempt(step.floor)) {
    entry.keep = optional ? null : step.floor;
    return;
  }
  // Invariant: `low` fits, `high` does not (the caller only shrinks a stub that is over budget).
  let low = step.floor;
  let high = current;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (attempt(middle)) low = middle;
    else high = middle;
  }
  entry.keep = low;
}
