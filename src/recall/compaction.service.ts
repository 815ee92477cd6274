import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import type { ActorContext } from '../tenancy/actor-context';
import type { SnapshotRecord } from '../tool-results/snapshot-record';
import { MAX_BATCH_ITEMS } from '../tool-results/tool-result-batch.rules';
import { ToolResultsService } from '../tool-results/tool-results.service';
import { o200kTokenizer } from './block/tokenizer';
import {
  checkCandidates,
  checkCompactMessagesInput,
  type CompactMessagesArgs,
  type CompactMessagesRequest,
  recordItemsOf,
  relocateRecordError,
} from './compact-messages.rules';
import { applyCompaction, findCompactionCandidates } from './ledger/compaction';
import type { CompactionCandidate, Message } from './ledger/compaction.types';
import { handleOf, type HandleWithStub } from './snapshot-handle';

export interface CompactMessagesOutcome {
  messages: Message[];
  compactedCount: number;
  charsBefore: number;
  charsAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  handles: HandleWithStub[];
}

const BATCH_FIELD = 'compaction';

/**
 * The wire view of a message list (R-LG-3): large, older tool results are recorded through the
 * ordinary write path and replaced by their stubs. The stubs come from the stored snapshots, and
 * a repeated tool_use_id returns the original snapshot, so the same input gives the same bytes
 * on every call and replica. The input is never mutated.
 */
@Injectable()
export class CompactionService {
  constructor(private readonly toolResults: ToolResultsService) {}

  async compact(actor: ActorContext, input: CompactMessagesArgs): Promise<CompactMessagesOutcome> {
    const request = checkCompactMessagesInput(input);
    // Checked here too, so a space the actor may not use is refused even when nothing is recorded.
    if (actor.allowedGeneration(request.spaceId) === undefined) throw new NotFoundError('Space', request.spaceId);
    const before = JSON.stringify(request.messages);
    const candidates = findCompactionCandidates(request.messages, request.options);
    if (candidates.length === 0) return unchangedOutcome(request.messages, before, o200kTokenizer.count(before));
    checkCandidates(candidates, request.messages);

    // Recorded even when the saving turns out too small to replace anything: the exact saving
    // needs the real stubs, which need the mem ids; recording is idempotent, and a later call
    // that does compact then reuses these very snapshots and stubs.
    const snapshots = await this.record(actor, request, candidates);
    const handles = snapshots.map(handleOf);
    const stubs = new Map(candidates.map((candidate, index) => [candidate.toolUseId, handles[index].stub]));
    const compacted = applyCompaction(request.messages, stubs);
    const after = JSON.stringify(compacted);
    const tokensBefore = o200kTokenizer.count(before);
    const tokensAfter = o200kTokenizer.count(after);
    if (tokensBefore - tokensAfter < request.clearAtLeastTokens) return unchangedOutcome(request.messages, before, tokensBefore);
    return {
      messages: compacted,
      compactedCount: candidates.length,
      charsBefore: before.length,
      charsAfter: after.length,
      tokensBefore,
      tokensAfter,
      handles,
    };
  }

  /** In batches the write path accepts; each is idempotent, so a retry after a failure completes the job. */
  private async record(actor: ActorContext, request: CompactMessagesRequest, candidates: readonly CompactionCandidate[]): Promise<SnapshotRecord[]> {
    const items = recordItemsOf(request, candidates);
    const snapshots: SnapshotRecord[] = [];
    for (let start = 0; start < items.length; start += MAX_BATCH_ITEMS) {
      const batch = items.slice(start, start + MAX_BATCH_ITEMS);
      try {
        snapshots.push(...(await this.toolResults.record(actor, batch, BATCH_FIELD)).snapshots);
      } catch (error) {
        throw relocateRecordError(error, BATCH_FIELD, candidates.slice(start, start + MAX_BATCH_ITEMS), request.messages);
      }
    }
    return snapshots;
  }
}

/** The input as it came, measured. */
function unchangedOutcome(messages: Message[], serialized: string, tokens: number): CompactMessagesOutcome {
  return {
    messages,
    compactedCount: 0,
    charsBefore: serialized.length,
    charsAfter: serialized.length,
    tokensBefore: tokens,
    tokensAfter: tokens,
    handles: [],
  };
}
