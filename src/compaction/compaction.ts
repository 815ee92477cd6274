import { createHash } from 'node:crypto';
import { ALL_TOOLS, type CompactionCandidate, type CompactionOptions, type InputCandidate, type Replacement } from './compaction.types';
import { jsonLongerThan } from '../common/text/json-text';
import type { HistoryReading, ToolCallSite, ToolOutput, ToolResultSite } from './history/history.types';

export { deterministicMessageId } from './message-id';

/**
 * Compaction, once for every format (R-LG-3): an adapter reads a history into tool
 * calls and results, `findCompactionCandidates` says which results to replace, the adapter
 * writes their stubs back.
 */

/**
 * Every result whose payload is longer than the threshold and older than the last `keepLastN`
 * results (all of them counted, compacted or not), except errors, excluded tools, results that are
 * already our stubs, and payloads we could not store faithfully (images, files). One candidate
 * per call id, in list order. A tool with its own settings (`toolSettings`) uses its own threshold, and
 * its own last N counted among its results only.
 */
export function findCompactionCandidates(
  reading: HistoryReading,
  options: CompactionOptions,
  conversationId: string,
): CompactionCandidate[] {
  const isProtected = protection(reading.results, (site) => site.toolName, options);
  const seen = new Set<string>();
  const candidates: CompactionCandidate[] = [];
  reading.results.forEach((site, order) => {
    const output = site.output;
    if (isProtected(order) || site.isError || site.isStub || output === null) return;
    if (isExcluded(options, site.toolName) || !longerThan(output, thresholdFor(options, site.toolName))) return;
    const toolUseId = site.callId ?? derivedCallId(conversationId, site);
    if (seen.has(toolUseId)) return;
    seen.add(toolUseId);
    candidates.push({
      kind: 'result',
      site,
      toolUseId,
      toolName: site.toolName,
      toolInput: site.call?.input ?? {},
      payload: output.kind === 'text' ? output.text : output.value,
      assistantMessageId: site.call?.entryId ?? null,
    });
  });
  return candidates;
}

/** Suffix of the id a call's arguments are stored under: the call's own id names its result. */
export const INPUT_ID_SUFFIX = '#input';

/**
 * The calls whose arguments are compacted (`clearToolInputs`, or the tool's setting): arguments
 * longer than the threshold, in calls older than the last `keepLastN` calls, not already a stub,
 * not of an excluded tool. One candidate per call id, in list order.
 */
export function findInputCandidates(reading: HistoryReading, options: CompactionOptions, conversationId: string): InputCandidate[] {
  const cleared = new Set(options.clearToolInputs ?? []);
  const clears = (name: string) => options.toolSettings?.get(name)?.clearInputs ?? (cleared.has(ALL_TOOLS) || cleared.has(name));
  const isProtected = protection(reading.calls, (call) => call.name, options);
  const seen = new Set<string>();
  const candidates: InputCandidate[] = [];
  reading.calls.forEach((call, order) => {
    if (isProtected(order) || call.inputIsStub || !clears(call.name) || isExcluded(options, call.name)) return;
    if (call.inputChars <= thresholdFor(options, call.name)) return;
    const toolUseId = `${call.id ?? derivedInputCallId(conversationId, call)}${INPUT_ID_SUFFIX}`;
    if (seen.has(toolUseId)) return;
    seen.add(toolUseId);
    candidates.push({ kind: 'input', call, toolUseId, toolName: call.name, payload: call.input, assistantMessageId: call.entryId });
  });
  return candidates;
}

/** Results and arguments together, oldest (first in the list) first. */
export function inListOrder(results: readonly CompactionCandidate[], inputs: readonly InputCandidate[]): Replacement[] {
  const position = (r: Replacement) => (r.kind === 'result' ? r.site : r.call);
  return [...results, ...inputs].sort((a, b) => {
    const pa = position(a);
    const pb = position(b);
    return pa.entryIndex - pb.entryIndex || (pa.partIndex ?? -1) - (pb.partIndex ?? -1);
  });
}

/** Whether the item at a list position is among the last N: of the whole list, or of its tool when the tool has its own N. */
function protection<T>(items: readonly T[], nameOf: (item: T) => string, options: CompactionOptions): (order: number) => boolean {
  const protectedFrom = items.length - Math.max(0, Math.floor(options.keepLastN));
  const settings = options.toolSettings;
  if (settings === undefined || ![...settings.values()].some((own) => own.keepLastN !== undefined))
    return (order) => order >= protectedFrom;
  // How many items of the same tool come after each one.
  const later = new Array<number>(items.length);
  const counts = new Map<string, number>();
  for (let order = items.length - 1; order >= 0; order--) {
    const name = nameOf(items[order]);
    later[order] = counts.get(name) ?? 0;
    counts.set(name, later[order] + 1);
  }
  return (order) => {
    const own = settings.get(nameOf(items[order]))?.keepLastN;
    return own === undefined ? order >= protectedFrom : later[order] < own;
  };
}

function isExcluded(options: CompactionOptions, toolName: string): boolean {
  return options.toolSettings?.get(toolName)?.exclude ?? options.excludeTools.includes(toolName);
}

function thresholdFor(options: CompactionOptions, toolName: string): number {
  return options.toolSettings?.get(toolName)?.sizeThreshold ?? options.sizeThreshold;
}

/**
 * The id a result is stored under when its call has none (Gemini allows that): from the
 * conversation, the tool name and a hash of the call's arguments and the payload, never the
 * position, which moves when a client trims its history. The same call and payload in the same
 * conversation is the same snapshot on every call and replica.
 */
export function derivedCallId(conversationId: string, site: ToolResultSite): string {
  const output = site.output;
  // JSON framing keeps the parts apart; the payload, often hundreds of KB, is hashed as it is rather than escaped again.
  const digest = createHash('sha256')
    .update(JSON.stringify(['recall-ledger/tool-call', conversationId, site.toolName, site.call?.input ?? null, output?.kind ?? null]))
    .update(output === null ? '' : output.kind === 'text' ? output.text : JSON.stringify(output.value))
    .digest('hex');
  return `call_${digest.slice(0, 32)}`;
}

/**
 * The id a call's arguments are stored under when the call has none: from the conversation, the
 * tool name and a hash of the arguments.
 */
function derivedInputCallId(conversationId: string, call: ToolCallSite): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(['recall-ledger/tool-input', conversationId, call.name, call.input ?? null]))
    .digest('hex');
  return `call_${digest.slice(0, 32)}`;
}

/** The payload's length in characters (a JSON payload's serialization) is over the limit. */
function longerThan(output: ToolOutput, limit: number): boolean {
  return output.kind === 'text' ? output.text.length > limit : jsonLongerThan(output.value, limit);
}

/**
 * How many replacements to make, oldest first (R-LG-3), given each one's saving in tokens: the
 * fewest that bring the history down to `targetTokens` (all of them when they cannot; all when
 * there is no target), then more while the saving is under `clearAtLeastTokens`; none when even
 * all of them save less than that (a cached prefix is worth more than a small saving).
 */
export function replacementsNeeded(
  beforeTokens: number,
  savings: readonly number[],
  targetTokens: number | null,
  clearAtLeastTokens: number,
): number {
  let saved = 0;
  let count = 0;
  const reached = () => (targetTokens === null ? count === savings.length : beforeTokens - saved <= targetTokens);
  while (count < savings.length && !reached()) saved += savings[count++];
  while (count < savings.length && saved < clearAtLeastTokens) saved += savings[count++];
  return count > 0 && saved >= clearAtLeastTokens ? count : 0;
}
