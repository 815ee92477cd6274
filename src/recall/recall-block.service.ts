import { Injectable } from '@nestjs/common';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import { NotFoundError, UnauthenticatedError } from '../common/errors/app-error';
import { o200kTokenizer } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import {
  BLOCK_RANKING_VERSION,
  FUSION_MODE_SINGLE,
  type RecallEventOutcome,
  RecallEventService,
  RecallEventSource,
  type ResultRef,
  ResultRefType,
} from '../recall-events';
import { type ActorContext, actorOf, type ActorOrPending } from '../tenancy';
import { type ToolResultSnapshot, ToolResultReader } from '../tool-results';
import { renderPreviouslyFetchedBlock, type RenderedBlock } from './block/previously-fetched-block';
import { looksLikeRecall } from './block/recall-intent';
import { RecallReads } from './recall-reads.service';
import { RecallMetrics } from './recall.metrics';

export interface RecallBlockOutcome extends RenderedBlock, RecallEventOutcome {
  injected: boolean;
}

const NOTHING: RenderedBlock = { text: '', tokens: 0, lines: [], droppedCount: 0 };

/**
 * The "Previously fetched" block for a conversation's system prompt (docs/requirements.md §5.1). Every call
 * stores its recall event (R-RC-9): the rows the block shows, at their place in it.
 */
@Injectable()
export class RecallBlockService {
  constructor(
    private readonly snapshots: ToolResultReader,
    private readonly config: AppConfig,
    private readonly metrics: RecallMetrics,
    private readonly events: RecallEventService,
    private readonly reads: RecallReads,
  ) {}

  /** `caller`: the guard's actor, or a `PendingActor` the block's statement reads (one round trip for the request). */
  async build(caller: ActorOrPending, conversationId: string, userMessage?: string | null): Promise<RecallBlockOutcome> {
    const { blockRows, blockTokenBudget, intentGating } = this.config.recall;
    const gated = intentGating && !looksLikeRecall(userMessage);
    const draft = await this.events.unplacedDraft(caller, {
      query: userMessage ?? null,
      rankingVersion: BLOCK_RANKING_VERSION,
      fusionMode: FUSION_MODE_SINGLE,
      searchFreshness: null,
    });
    // The line needs the call's arguments and the stored summary, never the output.
    const limit = gated ? 0 : blockRows;
    const columns = { input: true };
    let actor: ActorContext;
    let recent: ToolResultSnapshot[];
    let outcome: RecallEventOutcome | null = null;
    try {
      // The rows and their event in one round trip; the event's space is the conversation's.
      const read = await this.reads.readRecentAndRecord(caller, { conversationId, limit, columns }, draft);
      if (read.snapshots === null) throw new NotFoundError('Conversation', conversationId);
      actor = read.actor;
      recent = read.snapshots;
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof UnauthenticatedError) throw error;
      // R-RC-10: the block is answered without its event, degraded.
      outcome = this.events.unavailable(error, RecallEventSource.INTERNAL);
      actor = await actorOf(caller);
      recent = await this.snapshots.recentInConversation(actor, conversationId, limit, columns);
      if (recent.length === 0) await this.checkOwnConversation(actor, conversationId);
    }
    const block = gated ? NOTHING : renderPreviouslyFetchedBlock(recent, { tokenBudget: blockTokenBudget, tokenizer: o200kTokenizer });
    annotateSpan({ [SPAN_ATTRIBUTES.snapshots]: recent.length, [SPAN_ATTRIBUTES.refs]: block.lines.length });
    this.metrics.blockBuilt(block.tokens);
    if (outcome === null) {
      const refs = block.lines.map((line, index) => ({ type: ResultRefType.TOOL_RESULT, id: line.snapshotId, rank: index + 1 }));
      // Stored with every row read; rows the token budget dropped leave the event's refs and tool names.
      const toolNames = block.lines.map((line) => line.toolName);
      outcome = await this.storeShownRows(actor, draft.id, { refs, toolNames }, recent.length);
    }
    return { ...block, injected: block.lines.length > 0, ...outcome };
  }

  /** The event was stored with every row read; rows the token budget dropped leave its refs and its tool names. */
  private async storeShownRows(
    actor: ActorContext,
    eventId: string,
    shown: { refs: ResultRef[]; toolNames: string[] },
    rowsRead: number,
  ): Promise<RecallEventOutcome> {
    if (shown.refs.length < rowsRead) {
      try {
        await this.events.replaceResults(actor, eventId, shown.refs, shown.toolNames);
      } catch (error) {
        return this.events.unavailable(error, RecallEventSource.INTERNAL);
      }
    }
    return this.events.stored(actor, eventId, RecallEventSource.INTERNAL);
  }

  /** NOT_FOUND unless it is the actor's own conversation in an allowed space (another user's reads as missing). */
  private async checkOwnConversation(actor: ActorContext, conversationId: string): Promise<void> {
    if ((await this.snapshots.findOwnConversation(actor, conversationId)) === null) throw new NotFoundError('Conversation', conversationId);
  }
}
