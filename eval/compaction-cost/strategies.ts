import { MessageFormat } from '../../src/compaction/history/history.types';

/**
 * The strategies the cost eval compares (R-LG-3, docs/compaction-cost.md): what the client sends
 * the model on each call, and with which compactMessages settings.
 *
 * - `full`: the client keeps the whole history and sends compactMessages(history) on every call
 *   (as with provider-side clearing, where the client never sees the edited list).
 * - `view`: the client keeps the wire view compactMessages gave back and appends the new turns to
 *   it (the pattern docs/lookup-and-compaction.md describes for trigger and target).
 */

type ClientMode = 'full' | 'view';

/** compactMessages settings; what is left out takes the service's default. */
export interface CompactionSettings {
  triggerTokens?: number;
  targetTokens?: number;
  keepLastN?: number;
  clearAtLeastTokens?: number;
  clearToolInputs?: string[];
}

export interface Strategy {
  key: string;
  label: string;
  client: ClientMode;
  /** null: no compaction, the history goes to the model as it is. */
  compaction: CompactionSettings | null;
  /** Replayed in every format; the others (the rest of the grid) in the reference format only, to keep the run short. */
  inEveryFormat: boolean;
}

/** The format every strategy is replayed in. */
export const REFERENCE_FORMAT = MessageFormat.ANTHROPIC;

const NONE: Strategy = { key: 'none', label: 'none', client: 'full', compaction: null, inEveryFormat: true };
const EVERY_CALL: Strategy = {
  key: 'every-call',
  label: 'every call (defaults: 2000 chars, last 3)',
  client: 'full',
  compaction: {},
  inEveryFormat: true,
};

/** The tool whose large arguments the `+inputs` strategies clear (clearToolInputs). */
const CLEARED_INPUTS = ['write_file'];
const EVERY_CALL_INPUTS: Strategy = {
  key: 'every-call-inputs',
  label: 'every call +inputs (clearToolInputs write_file)',
  client: 'full',
  compaction: { clearToolInputs: CLEARED_INPUTS },
  inEveryFormat: false,
};

/** The trigger and target pairs tried, in tokens, for a client that keeps the wire view. */
export const PRESSURE_PAIRS: readonly (readonly [trigger: number, target: number])[] = [
  [30_000, 10_000],
  [40_000, 20_000],
  [60_000, 20_000],
  [60_000, 40_000],
  [80_000, 20_000],
  [80_000, 40_000],
  [100_000, 20_000],
  [100_000, 40_000],
];

/** The pairs replayed in every format (clearing write_file inputs, the cheaper of the two in the reference format). */
const PAIRS_IN_EVERY_FORMAT = ['40k-20k', '60k-20k'];

function thousands(tokens: number): string {
  return `${tokens / 1000}k`;
}

function pressure(client: ClientMode, trigger: number, target: number, clearInputs: boolean, inEveryFormat: boolean): Strategy {
  const pair = `${thousands(trigger)}-${thousands(target)}`;
  return {
    key: `${client}-${pair}${clearInputs ? '-inputs' : ''}`,
    label: `${client === 'view' ? 'view, ' : 'full, '}trigger ${thousands(trigger)} → target ${thousands(target)}${clearInputs ? ' +inputs' : ''}`,
    client,
    compaction: { triggerTokens: trigger, targetTokens: target, ...(clearInputs ? { clearToolInputs: CLEARED_INPUTS } : {}) },
    inEveryFormat: inEveryFormat || (client === 'view' && clearInputs && PAIRS_IN_EVERY_FORMAT.includes(pair)),
  };
}

/**
 * Anthropic's server-side tool-result clearing (clear_tool_uses) as our settings can say it: over 100k tokens of the history
 * as sent, every result but the last 3 is cleared (no target), only when that clears at least 10k
 * tokens, call arguments included. What differs is in docs/compaction-cost.md.
 */
const ANTHROPIC_LIKE: Strategy = {
  key: 'anthropic-like',
  label: 'Anthropic-like clearing: trigger 100k, last 3, ≥10k, all inputs',
  client: 'full',
  compaction: { triggerTokens: 100_000, keepLastN: 3, clearAtLeastTokens: 10_000, clearToolInputs: ['*'] },
  inEveryFormat: true,
};

/**
 * Every strategy. The whole grid of pairs for a client that keeps the wire view; for a client that
 * sends its full history, where every call over the trigger compacts again (see
 * docs/compaction-cost.md), two pairs. A client sending its full history is the slow part of a run
 * (a history near a megabyte through the service on every call): the formats other than the
 * reference replay only the strategies the report's conclusions rest on.
 */
export const STRATEGIES: readonly Strategy[] = [
  NONE,
  EVERY_CALL,
  EVERY_CALL_INPUTS,
  pressure('full', 60_000, 20_000, true, true),
  pressure('full', 100_000, 40_000, false, false),
  ...PRESSURE_PAIRS.flatMap(([trigger, target]) => [
    pressure('view', trigger, target, false, false),
    pressure('view', trigger, target, true, false),
  ]),
  ANTHROPIC_LIKE,
];

export const BASELINES = { none: NONE.key, everyCall: EVERY_CALL.key } as const;

/** The compactMessages input fields a strategy sets (GraphQL CompactMessagesInput). */
export function compactionInput(settings: CompactionSettings): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}
