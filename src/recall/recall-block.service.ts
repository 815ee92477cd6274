import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { o200kTokenizer } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { ToolResultsService } from '../tool-results/tool-results.service';
import { DEFAULT_BLOCK_ROWS, DEFAULT_BLOCK_TOKEN_BUDGET, renderPreviouslyFetchedBlock, type RenderedBlock } from './block/previously-fetched-block';
import { looksLikeRecall } from './block/recall-intent';
import { BLOCK_RANKING_VERSION, FUSION_MODE_SINGLE, ResultRefType } from './events/recall-event.rules';
import { type RecallEventOutcome, RecallEventService } from './events/recall-event.service';
import { RecallMetrics } from './recall.metrics';

export interface RecallBlockOutcome extends RenderedBlock, RecallEventOutcome {
  injected: boolean;
}

const NOTHING: RenderedBlock = { text: '', tokens: 0, lines: [], droppedCount: 0 };

/**
 * The "Previously fetched" block for a conversation's system prompt (SPEC §5.1). Every call
 * stores its recall event (R-RC-9): the rows the block shows, at their place in it.
 */
@Injectable()
export class RecallBlockService {
  constructor(
    private readonly toolResults: ToolResultsService,
    private readonly config: AppConfig,
    private readonly metrics: RecallMetrics,
    private readonly events: RecallEventService,
  ) {}

  async build(actor: ActorContext, conversationId: string, userMessage?: string | null): Promise<RecallBlockOutcome> {
    const { blockRows = DEFAULT_BLOCK_ROWS, blockTokenBudget = DEFAULT_BLOCK_TOKEN_BUDGET, intentGating } = this.config.recall;
    const gated = intentGating && !looksLikeRecall(userMessage);
    // The line needs the call's arguments and the stored summary, never the output.
    const recent = gated ? [] : await this.toolResults.recentInConversation(actor, conversationId, blockRows, { input: true });
    // Rows come only from an allowed space of the actor's own conversation; only an empty result
    // needs a look at the conversation, to tell an empty one from a missing one.
    const spaceId = recent[0]?.spaceId ?? (await this.conversationSpace(actor, conversationId));
    const block = gated ? NOTHING : renderPreviouslyFetchedBlock(recent, { tokenBudget: blockTokenBudget, tokenizer: o200kTokenizer });
    this.metrics.blockBuilt(block.tokens);
    const event = await this.events.draft(actor, {
      spaceId,
      query: userMessage ?? null,
      rankingVersion: BLOCK_RANKING_VERSION,
      fusionMode: FUSION_MODE_SINGLE,
      searchFreshness: null,
    });
    const refs = block.lines.map((line, index) => ({ type: ResultRefType.TOOL_RESULT, id: line.snapshotId, rank: index + 1 }));
    return { ...block, injected: block.lines.length > 0, ...(await this.events.store(actor, event, refs)) };
  }

  /** The space of the actor's own conversation; another user's, or one in a space the actor may not use, reads as missing. */
  private async conversationSpace(actor: ActorContext, conversationId: string): Promise<string> {
    const conversation = await this.toolResults.findOwnConversation(actor, conversationId);
    if (conversation === null) throw new NotFoundError('Conversation', conversationId);
    return conversation.spaceId;
  }
}
