import { BadUserInputError, ConflictError, NotFoundError } from '../common/errors/app-error';
import type { ActorContext } from '../tenancy/actor-context';

/*
 * Which conversations and messages a batch names, and whether they are the actor's: pure rules
 * of the write path (R-TR-2, R-TR-4), used to build the batch and to explain a refused one.
 */

/** What these rules read of a batch item. */
export interface BatchItem {
  spaceId: string;
  conversationId: string;
  messageId: string;
}

/**
 * A repeated tool_use_id returns its original snapshot (R-TR-2); one stored in a space the actor
 * may no longer use cannot be returned, nor recorded again under the same id.
 */
export function checkRepeatsVisible(repeated: readonly string[], found: readonly { toolUseId: string }[], rows: readonly { toolUseId: string }[], field: string): void {
  const visible = new Set(found.map((s) => s.toolUseId));
  for (const toolUseId of repeated) {
    if (visible.has(toolUseId)) continue;
    const index = rows.findIndex((r) => r.toolUseId === toolUseId);
    throw new ConflictError(
      `${field}.${index}.toolUseId ${toolUseId} is already recorded in a space you can no longer use; send the result under a new toolUseId.`,
      `${field}.${index}.toolUseId`,
    );
  }
}

/** Distinct conversations of a batch, each in an allowed space and in one space only. */
export function conversationsOf(items: readonly BatchItem[], actor: ActorContext, field: string) {
  const byId = new Map<string, { id: string; spaceId: string; index: number }>();
  items.forEach((item, index) => {
    if (actor.allowedGeneration(item.spaceId) === undefined) throw new NotFoundError('Space', item.spaceId);
    const seen = byId.get(item.conversationId);
    if (seen && seen.spaceId !== item.spaceId) {
      throw new BadUserInputError(`${field}.${index}.spaceId`, `Conversation ${item.conversationId} appears with two spaces in this batch.`);
    }
    if (!seen) byId.set(item.conversationId, { id: item.conversationId, spaceId: item.spaceId, index });
  });
  // In id order: concurrent batches then create and lock shared rows in the same order.
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function messagesOf(items: readonly BatchItem[], field: string) {
  const byId = new Map<string, { id: string; conversationId: string; index: number }>();
  items.forEach((item, index) => {
    const seen = byId.get(item.messageId);
    if (seen && seen.conversationId !== item.conversationId) {
      throw new BadUserInputError(`${field}.${index}.messageId`, `Message ${item.messageId} appears with two conversations in this batch.`);
    }
    if (!seen) byId.set(item.messageId, { id: item.messageId, conversationId: item.conversationId, index });
  });
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** Every conversation and message of the batch must be the actor's own (R-TR-4). */
export function checkOwnership(
  owned: { conversations: { id: string; spaceId: string }[]; messages: { id: string; conversationId: string }[] },
  conversations: readonly { id: string; spaceId: string; index: number }[],
  messages: readonly { id: string; conversationId: string; index: number }[],
  field: string,
): void {
  for (const wanted of conversations) {
    const mine = owned.conversations.find((c) => c.id === wanted.id);
    // Another user's conversation reads exactly as a missing one (R-TN-5).
    if (!mine) throw new NotFoundError('Conversation', wanted.id);
    if (mine.spaceId !== wanted.spaceId) {
      throw new BadUserInputError(`${field}.${wanted.index}.spaceId`, `Conversation ${wanted.id} belongs to space ${mine.spaceId}, not ${wanted.spaceId}.`);
    }
  }
  for (const wanted of messages) {
    const mine = owned.messages.find((m) => m.id === wanted.id);
    if (!mine) throw new NotFoundError('Message', wanted.id);
    if (mine.conversationId !== wanted.conversationId) {
      throw new BadUserInputError(`${field}.${wanted.index}.messageId`, `Message ${wanted.id} belongs to another conversation than ${wanted.conversationId}.`);
    }
  }
}
