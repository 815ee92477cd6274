import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { ToolResultRepository } from '../tool-results/tool-result.repository';
import { renderPreviouslyFetchedBlock, type RenderedBlock } from './block/previously-fetched-block';
import { looksLikeRecall } from './block/recall-intent';
import { o200kTokenizer } from './block/tokenizer';
import { RecallMetrics } from './recall.metrics';

export interface RecallBlockOutcome extends RenderedBlock {
  injected: boolean;
}

const NOTHING: RenderedBlock = { text: '', tokens: 0, lines: [], droppedCount: 0 };

/** The "Previously fetched" block for a conversation's system prompt (SPEC §5.1). */
@Injectable()
export class RecallBlockService {
  constructor(
    private readonly snapshots: ToolResultRepository,
    private readonly config: AppConfig,
    private readonly metrics: RecallMetrics,
  ) {}

  async build(actor: ActorContext, conversationId: string, userMessage?: string | null): Promise<RecallBlockOutcome> {
    const { blockRows, blockTokenBudget, intentGating } = this.config.recall;
    if (intentGating && !looksLikeRecall(userMessage)) {
      await this.checkConversation(actor, conversationId, null);
      return { ...NOTHING, injected: false };
    }
    const recent = await this.snapshots.recentInConversation(actor.userId, conversationId, blockRows);
    // The rows carry the conversation's space; only an empty result needs a look at the conversation.
    await this.checkConversation(actor, conversationId, recent[0]?.spaceId ?? null);
    const block = renderPreviouslyFetchedBlock(recent, { tokenBudget: blockTokenBudget, tokenizer: o200kTokenizer });
    this.metrics.blockBuilt(block.tokens);
    return { ...block, injected: block.lines.length > 0 };
  }

  /** Another user's conversation, or one in a space the actor may not use, reads as missing. */
  private async checkConversation(actor: ActorContext, conversationId: string, knownSpaceId: string | null): Promise<void> {
    const spaceId = knownSpaceId ?? (await this.snapshots.findOwnConversation(actor.userId, conversationId))?.spaceId;
    if (spaceId === undefined || actor.allowedGeneration(spaceId) === undefined) throw new NotFoundError('Conversation', conversationId);
  }
}
