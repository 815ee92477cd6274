import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import type { CountedJson } from '../common/text/json-array-tokens';
import { TokenCounter } from '../common/text/token-counter';
import type { ActorContext } from '../tenancy';
import { type ToolResultHandle, MAX_BATCH_ITEMS, type ToolResultSnapshot, ToolResultsService } from '../tool-results';
import {
  checkCandidates,
  checkCompactMessagesInput,
  type CompactMessagesArgs,
  type CompactMessagesRequest,
  recordItemsOf,
  relocateRecordError,
} from './compact-messages.rules';
import { findCompactionCandidates } from './compaction';
import type { CompactionCandidate } from './compaction.types';
import { MessageFormat } from './history/history.types';

export interface CompactMessagesOutcome {
  /** The list in the format it came in. */
  messages: object[];
  /** The format used: the one asked for, or detected; AUTO when the list holds no tool call or result. */
  messageFormat: MessageFormat;
  compactedCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: ToolResultHandle[];
}

const BATCH_FIELD = 'compaction';

/**
 * The wire view of a message list in any supported format (R-LG-3): large, older tool results are recorded through the
 * ordinary write path and replaced by their stubs. The stubs are the ones stored with the
 * snapshots, and results already stored are looked up rather than sent again, so the same input
 * gives the same bytes on every call and replica. The input is never mutated. A snapshot whose
 * stub compaction hands out is marked compacted: the per-conversation cap never removes it.
 */
@Injectable()
export class CompactionService {
  constructor(
    private readonly toolResults: ToolResultsService,
    private readonly tokens: TokenCounter,
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
    const before = await this.tokens.countJsonArray(history.entries, serialized);
    const candidates = findCompactionCandidates(history.reading, request.options, request.conversationId);
    if (candidates.length === 0 || history.adapter === null) return unchangedOutcome(history.entries, history.format, before);
    checkCandidates(candidates);

    // Recorded (and marked compacted, so a later batch of this call cannot trim them) even when the
    // saving turns out too small to replace anything: the exact saving needs the real stubs, which
    // need the mem ids. Recording is idempotent, and a later call reuses these very stubs.
    const { snapshots, marked } = await this.snapshotsOf(actor, request, candidates);
    const handles = snapshots.map((snapshot) => snapshot.handle);
    const compacted = history.adapter.writeStubs(
      history.entries,
      candidates.map((candidate, index) => ({ site: candidate.site, stub: handles[index].stub })),
    );
    const after = await this.tokens.countJsonArray(compacted, serialized);
    if (before.tokens - after.tokens < request.clearAtLeastTokens) {
      // No stub was handed out: the rows this call marked fall under the cap again.
      await this.toolResults.setCompacted(actor, marked, false);
      return unchangedOutcome(history.entries, history.format, before);
    }
    return {
      messages: compacted,
      messageFormat: history.format,
      compactedCount: candidates.length,
      charsBefore: before.json.length,
      charsAfter: after.json.length,
      tokensBefore: before.tokens,
      tokensAfter: after.tokens,
      handles,
    };
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
    candidates: readonly CompactionCandidate[],
  ): Promise<{ snapshots: ToolResultSnapshot[]; marked: string[] }> {
    const found = await this.toolResults.findByToolUseIds(
      actor,
      candidates.map((c) => c.toolUseId),
    );
    const marked = await this.toolResults.setCompacted(
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
    candidates: readonly CompactionCandidate[],
  ): Promise<{ snapshots: ToolResultSnapshot[]; createdIds: string[] }> {
    const items = recordItemsOf(request, candidates);
    const snapshots: ToolResultSnapshot[] = [];
    const createdIds: string[] = [];
    for (let start = 0; start < items.length; start += MAX_BATCH_ITEMS) {
      const batch = items.slice(start, start + MAX_BATCH_ITEMS);
      try {
        const outcome = await this.toolResults.record(actor, batch, { field: BATCH_FIELD, compacted: true });
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
function unchangedOutcome(messages: object[], messageFormat: MessageFormat, measured: CountedJson): CompactMessagesOutcome {
  return {
    messages,
    messageFormat,
    compactedCount: 0,
    charsBefore: measured.json.length,
    charsAfter: measured.json.length,
    tokensBefore: measured.tokens,
    tokensAfter: measured.tokens,
    handles: [],
  };
}
