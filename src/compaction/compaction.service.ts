import { setImmediate as nextTurn } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { type CountedJson, type CountedText, countsPieceByPiece, jsonArrayPiece, serializeEach } from '../common/text/json-array-tokens';
import { TokenCounter } from '../common/text/token-counter';
import type { ActorContext } from '../tenancy';
import { type ToolResultHandle, MAX_BATCH_ITEMS, type ToolResultSnapshot, ToolResultWriter, ToolResultReader } from '../tool-results';
import {
  checkCandidates,
  checkCompactMessagesInput,
  policiesMayApply,
  withTeamPolicies,
  type CompactMessagesArgs,
  type CompactMessagesRequest,
  recordItemsOf,
  relocateRecordError,
} from './compact-messages.checks';
import { findCompactionCandidates, findInputCandidates, inListOrder, replacementsNeeded } from './compaction';
import { CompactionPoliciesService } from './compaction-policies';
import type { Replacement } from './compaction.types';
import { type HistoryAdapter, type InputStubPlacement, MessageFormat, type StubPlacement } from './history/history.types';

export interface CompactMessagesOutcome {
  /** The list in the format it came in. */
  messages: object[];
  /** The format used: the one asked for, or detected; AUTO when the list holds no tool call or result. */
  messageFormat: MessageFormat;
  /** False when the history was at or under `triggerTokens`: it came back as it was. */
  triggered: boolean;
  compactedCount: number;
  clearedInputCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: ToolResultHandle[];
}

const BATCH_FIELD = 'compaction';
/** Replacements savingsOf writes between two turns of the event loop: about 2 ms of work. */
const REPLACEMENTS_PER_TURN = 256;

/**
 * The wire view of a message list in any supported format (R-LG-3): large, older tool results
 * (and, when asked, large call arguments) are recorded through the ordinary write path and
 * replaced by their stubs — under pressure only when a trigger is given, oldest first and only as
 * many as reach the target when one is. The team's per-tool policies (R-LG-4) fill in what the
 * request leaves unsaid. The stubs are the ones stored with the snapshots, and results already
 * stored are looked up rather than sent again, so the same input gives the same bytes on every
 * call and replica. The input is never mutated. A snapshot whose stub compaction hands out is
 * marked compacted: the per-conversation cap never removes it.
 */
@Injectable()
export class CompactionService {
  constructor(
    private readonly toolResultWriter: ToolResultWriter,
    private readonly snapshots: ToolResultReader,
    private readonly tokens: TokenCounter,
    private readonly policies: CompactionPoliciesService,
  ) {}

  async compact(actor: ActorContext, input: CompactMessagesArgs): Promise<CompactMessagesOutcome> {
    const request = checkCompactMessagesInput(input);
    // Checked here too, so a space the actor may not use is refused even when nothing is recorded.
    if (actor.allowedGeneration(request.spaceId) === undefined) throw new NotFoundError('Space', request.spaceId);
    // Each message is serialized and counted once; what compaction leaves alone is not counted
    // again, and a message counted on an earlier call (the same history, one turn older) is not
    // tokenized again either.
    const serialized = new WeakMap<object, string>();
    const { history } = request;
    const before = await this.tokens.countJsonArray(actor.teamId, history.entries, serialized);
    if (request.triggerTokens !== null && before.tokens <= request.triggerTokens) {
      return unchangedOutcome(history.entries, history.format, before, false);
    }
    if (history.adapter === null) return unchangedOutcome(history.entries, history.format, before, true);
    const options = policiesMayApply(request) ? withTeamPolicies(request, await this.policies.forTeam(actor)) : request.options;
    const replacements = inListOrder(
      findCompactionCandidates(history.reading, options, request.conversationId),
      findInputCandidates(history.reading, options, request.conversationId),
    );
    if (replacements.length === 0) return unchangedOutcome(history.entries, history.format, before, true);
    checkCandidates(replacements);

    // Every candidate is recorded (and marked compacted, so a later batch of this call cannot trim
    // it) before choosing how many to replace: the exact saving needs the real stubs, which need
    // the mem ids. Recording is idempotent, a later call reuses these very stubs, and the ones
    // left in place are unmarked below.
    const { snapshots, marked } = await this.snapshotsOf(actor, request, replacements);
    const stubs = snapshots.map((snapshot) => snapshot.handle.stub);
    const adapter = history.adapter;
    const write = (count: number) => writeReplacements(adapter, history.entries, replacements.slice(0, count), stubs);
    let count = replacements.length;
    if (request.targetTokens !== null) {
      const savings = await this.savingsOf(actor.teamId, history.entries, serialized, adapter, replacements, stubs);
      count = replacementsNeeded(before.tokens, savings, request.targetTokens, request.clearAtLeastTokens);
    }
    let compacted = write(count);
    let after = await this.tokens.countJsonArray(actor.teamId, compacted, serialized);
    // The savings are exact when the list's count adds up element by element; otherwise they were
    // estimated, and the target is met by adding replacements one at a time.
    while (count > 0 && count < replacements.length && request.targetTokens !== null && after.tokens > request.targetTokens) {
      compacted = write(++count);
      after = await this.tokens.countJsonArray(actor.teamId, compacted, serialized);
    }
    const unused = new Set(snapshots.slice(count).map((snapshot) => snapshot.id));
    if (count === 0 || before.tokens - after.tokens < request.clearAtLeastTokens) {
      // No stub was handed out: the rows this call marked fall under the cap again.
      await this.toolResultWriter.setCompacted(actor, marked, false);
      return unchangedOutcome(history.entries, history.format, before, true);
    }
    const unmark = marked.filter((id) => unused.has(id));
    if (unmark.length > 0) await this.toolResultWriter.setCompacted(actor, unmark, false);
    const used = replacements.slice(0, count);
    return {
      messages: compacted,
      messageFormat: history.format,
      triggered: true,
      compactedCount: used.filter((r) => r.kind === 'result').length,
      clearedInputCount: used.filter((r) => r.kind === 'input').length,
      charsBefore: before.chars,
      charsAfter: after.chars,
      tokensBefore: before.tokens,
      tokensAfter: after.tokens,
      handles: snapshots.slice(0, count).map((snapshot) => snapshot.handle),
    };
  }

  /**
   * Each replacement's saving in tokens when they are made one after another in list order:
   * the count of its entry before and after it (an entry may hold several). Exact when the
   * list's count adds up element by element (json-array-tokens); otherwise each entry is counted
   * on its own, an estimate. Each replacement is written into its entry alone, as the ones before
   * it left it: the work grows with the replacements, not with replacements × list length.
   */
  private async savingsOf(
    team: string,
    entries: readonly object[],
    serialized: WeakMap<object, string>,
    adapter: HistoryAdapter,
    replacements: readonly Replacement[],
    stubs: readonly string[],
  ): Promise<number[]> {
    const parts = serializeEach(entries, serialized);
    const byPiece = countsPieceByPiece(parts);
    const last = entries.length - 1;
    const textOf = (json: string, index: number): CountedText => (byPiece ? jsonArrayPiece(json, index === last) : { text: json });
    const touched = [...new Set(replacements.map(entryIndexOf))];
    const texts = touched.map((index) => textOf(parts[index], index));
    const written = new Map(touched.map((index) => [index, entries[index]]));
    for (const [order, replacement] of replacements.entries()) {
      // A history of tens of thousands of small results: the event loop turns every few milliseconds.
      if (order > 0 && order % REPLACEMENTS_PER_TURN === 0) await nextTurn();
      const index = entryIndexOf(replacement);
      const entry = writeIntoEntry(adapter, written.get(index) as object, replacement, stubs[order]);
      written.set(index, entry);
      texts.push(textOf(JSON.stringify(entry), index));
    }
    const counts = await this.tokens.countCached(team, texts);
    const current = new Map(touched.map((index, order) => [index, counts[order]]));
    return replacements.map((replacement, order) => {
      const index = entryIndexOf(replacement);
      const now = counts[touched.length + order];
      const saving = (current.get(index) as number) - now;
      current.set(index, now);
      return saving;
    });
  }

  /**
   * The candidates' snapshots, in candidate order, marked compacted: the stored ones looked up by
   * tool_use_id (their payloads are not sent again), the new ones recorded as compacted. A stored
   * one the cap deleted between the lookup and the mark is recorded again. `marked`: the rows this
   * call inserted or turned compacted.
   */
  private async snapshotsOf(
    actor: ActorContext,
    request: CompactMessagesRequest,
    candidates: readonly Replacement[],
  ): Promise<{ snapshots: ToolResultSnapshot[]; marked: string[] }> {
    const found = await this.snapshots.findByToolUseIds(
      actor,
      candidates.map((c) => c.toolUseId),
    );
    const marked = await this.toolResultWriter.setCompacted(
      actor,
      found.filter((s) => !s.compacted).map((s) => s.id),
      true,
    );
    const kept = new Set(marked);
    const stored = new Map(found.filter((s) => s.compacted || kept.has(s.id)).map((s) => [s.toolUseId, s]));
    const recorded = await this.record(
      actor,
      request,
      candidates.filter((c) => !stored.has(c.toolUseId)),
    );
    for (const snapshot of recorded.snapshots) stored.set(snapshot.toolUseId, snapshot);
    return { snapshots: candidates.map((c) => stored.get(c.toolUseId) as ToolResultSnapshot), marked: [...marked, ...recorded.createdIds] };
  }

  /** In batches the write path accepts; each is idempotent, so a retry after a failure completes the job. */
  private async record(
    actor: ActorContext,
    request: CompactMessagesRequest,
    candidates: readonly Replacement[],
  ): Promise<{ snapshots: ToolResultSnapshot[]; createdIds: string[] }> {
    const items = recordItemsOf(request, candidates);
    const snapshots: ToolResultSnapshot[] = [];
    const createdIds: string[] = [];
    for (let start = 0; start < items.length; start += MAX_BATCH_ITEMS) {
      const batch = items.slice(start, start + MAX_BATCH_ITEMS);
      try {
        const outcome = await this.toolResultWriter.record(actor, batch, { field: BATCH_FIELD, compacted: true });
        snapshots.push(...outcome.snapshots);
        createdIds.push(...outcome.createdIds);
      } catch (error) {
        throw relocateRecordError(error, BATCH_FIELD, candidates.slice(start, start + MAX_BATCH_ITEMS));
      }
    }
    return { snapshots, createdIds };
  }
}

/** The input as it came, measured. */
function unchangedOutcome(
  messages: object[],
  messageFormat: MessageFormat,
  measured: CountedJson,
  triggered: boolean,
): CompactMessagesOutcome {
  return {
    messages,
    messageFormat,
    triggered,
    compactedCount: 0,
    clearedInputCount: 0,
    charsBefore: measured.chars,
    charsAfter: measured.chars,
    tokensBefore: measured.tokens,
    tokensAfter: measured.tokens,
    handles: [],
  };
}

function entryIndexOf(replacement: Replacement): number {
  return replacement.kind === 'result' ? replacement.site.entryIndex : replacement.call.entryIndex;
}

/**
 * `entry` with one more replacement's stub written in: the adapter is given a list of that entry
 * alone, and a placement names its entry by its index in the list given. Writing stubs into
 * different parts of an entry commutes, so entry by entry gives what the whole list would.
 */
function writeIntoEntry(adapter: HistoryAdapter, entry: object, replacement: Replacement, stub: string): object {
  const alone: Replacement =
    replacement.kind === 'result'
      ? { ...replacement, site: { ...replacement.site, entryIndex: 0 } }
      : { ...replacement, call: { ...replacement.call, entryIndex: 0 } };
  return writeReplacements(adapter, [entry], [alone], [stub])[0];
}

/** The list with these replacements' stubs written in (`stubs` in replacement order). */
function writeReplacements(
  adapter: HistoryAdapter,
  entries: readonly object[],
  replacements: readonly Replacement[],
  stubs: readonly string[],
): object[] {
  const results: StubPlacement[] = [];
  const inputs: InputStubPlacement[] = [];
  replacements.forEach((replacement, index) => {
    if (replacement.kind === 'result') results.push({ site: replacement.site, stub: stubs[index] });
    else inputs.push({ call: replacement.call, stub: stubs[index] });
  });
  return adapter.writeStubs(entries, results, inputs);
}
