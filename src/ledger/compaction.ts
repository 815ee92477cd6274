import { createHash } from 'node:crypto';
import type { CompactionCandidate, CompactionOptions } from './compaction.types';
import { jsonLongerThan } from '../common/text/json-text';
import type { HistoryReading, ToolOutput, ToolResultSite } from './history/history.types';

export { deterministicMessageId } from './message-id';

/**
 * The compaction rules, once for every format (R-LG-3): an adapter reads a history into tool
 * calls and results, `findCompactionCandidates` says which results to replace, the adapter
 * writes their stubs back.
 */

/**
 * Every result whose payload is longer than the threshold and older than the last `keepLastN`
 * results (all of them counted, compacted or not), except errors, excluded tools, results that are
 * already our stubs, and payloads we could not store faithfully (images, files). One candidate
 * per call id, in list order.
 */
export function findCompactionCandidates(
  reading: HistoryReading,
  options: CompactionOptions,
  conversationId: string,
): CompactionCandidate[] {
  const excluded = new Set(options.excludeTools);
  const protectedFrom = reading.results.length - Math.max(0, Math.floor(options.keepLastN));
  const seen = new Set<string>();
  const candidates: CompactionCandidate[] = [];
  reading.results.forEach((site, order) => {
    const output = site.output;
    if (order >= protectedFrom || site.isError || site.isStub || output === null) return;
    if (!longerThan(output, options.sizeThreshold) || excluded.has(site.toolName)) return;
    const toolUseId = site.callId ?? derivedCallId(conversationId, site);
    if (seen.has(toolUseId)) return;
    seen.add(toolUseId);
    candidates.push({
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

/** The payload's length in characters (a JSON payload's serialization) is over the limit. */
function longerThan(output: ToolOutput, limit: number): boolean {
  return output.kind === 'text' ? output.text.length > limit : jsonLongerThan(output.value, limit);
}
