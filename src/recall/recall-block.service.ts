import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { o200kTokenizer } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { ToolResultsService } from '../tool-results/tool-results.service';
import { DEFAULT_BLOCK_ROWS, DEFAULT_BLOCK_TOKEN_BUDGET, renderPreviouslyFetchedBlock, type RenderedBlock } from './block/previously-fetched-block';
import { looksLikeRecall } from './block/recall-intent';
import { RecallMetrics } from './recall.metrics';

export interface RecallBlockOutcome extends RenderedBlock {
  injected: boolean;
}

const NOTHING: RenderedBlock = { text: '', tokens: 0, lines: [], droppedCount: 0 };

/** The "Previously fetched" block for a conversation's system prompt (SPEC §5.1). */
@Injectable()
export class RecallBlockService {
  constructor(
    private readonly toolResults: ToolResultsService,
    private readonly config: AppConfig,
    private readonly metrics: RecallMetrics,
  ) {}

  async build(actor: ActorContext, conversationId: string, userMessage?: string | null): Promise<RecallBlockOutcome> {
    const { blockRows = DEFAULT_BLOCK_ROWS, blockTokenBudget = DEFAULT_BLOCK_TOKEN_BUDGET, intentGating } = this.config.recall;
    if (intentGating && !looksLikeRecall(userMessage)) {
      await this.checkConversation(actor, conversationId);
      return { ...NOTHING, injected: false };
    }
    // The line needs the call's arguments and the stored summary, never the output.
    const recent = await this.toolResults.recentInConversation(actor, conversationId, blockRows, { input: true });
    // Rows come only from an allowed space of the actor's own conversation; only an empty result
    // needs a look at the conversation, to tell an empty one from a missing one.
    if (recent.length === 0) await this.checkConversation(actor, conversationId);
    const block = renderPreviouslyFetchedBlock(recent, { tokenBudget: blockTokenBudget, tokenizer: o200kTokenizer });
    this.metrics.blockBuilt(block.tokens);
    return { ...block, injected: block.lines.length > 0 };
  }

  /** Another user's conversation, or one in a space the actor may not use, reads as missing. */
  private async checkConversation(actor: ActorContext, conversationId: string): Promise<void> {
    if ((await this.toolResults.findOwnConversation(actor, conversationId)) === null) throw new NotFoundError('Conversation', conversationId);
  }
}
