import { BadUserInputError, ConflictError, NotFoundError } from '../common/errors/app-error';
import type { ActorContext } from '../tenancy';

/*
 * Which conversations and messages a batch names, and whether they are the actor's: pure checks
 * of the write path (R-TR-2, R-TR-4), used to build the batch and to explain a refused one.
 */

/** What these checks read of a batch item. */
export interface BatchItem {
  spaceId: string;
  conversationId: string;
  messageId: string;
}

/**
 * A repeated tool_use_id returns its original snapshot (R-TR-2); one stored in a space the actor
 * may no longer use cannot be returned, nor recorded again under the same id.
 */
export function checkRepeatsVisible(
  repeated: readonly string[],
  found: readonly { toolUseId: string }[],
  rows: readonly { toolUseId: string }[],
  field: string,
): void {
  const visible = new Set(found.map((s) => s.toolUseId));
  for (const toolUseId of repeated) {
    if (visible.has(toolUseId)) continue;
    throw repeatOutOfScope(
      field,
      rows.findIndex((r) => r.toolUseId === toolUseId),
      toolUseId,
    );
  }
}

function repeatOutOfScope(field: string, index: number, toolUseId: string): ConflictError {
  return new ConflictError(
    `${field}.${index}.toolUseId ${toolUseId} is already recorded in a space you can no longer use; send the result under a new toolUseId.`,
    `${field}.${index}.toolUseId`,
  );
}

/** Distinct conversations of a batch, each in an allowed space and in one space only. */
export function conversationsOf(items: readonly BatchItem[], actor: ActorContext, field: string) {
  const byId = new Map<string, { id: string; spaceId: string; index: number }>();
  items.forEach((item, index) => {
    if (actor.allowedGeneration(item.spaceId) === undefined) throw new NotFoundError('Space', item.spaceId);
    const seen = byId.get(item.conversationId);
    if (seen && seen.spaceId !== item.spaceId) {
      throw new BadUserInputError(
        `${field}.${index}.spaceId`,
        `Conversation ${item.conversationId} appears with two spaces in this batch.`,
      );
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

/** SQLSTATEs raised by `record_tool_results` (current body in schema.sql), with the refused row in the detail. */
const NOT_OWNED = 'RL001';
const REPEAT_OUT_OF_SCOPE = 'RL002';

type Refused = { kind: 'conversation' | 'message'; id: string; actual: string | null } | { tool_use_id: string };

/**
 * The error for the item the write function refused the batch for (nothing was written; the
 * rules themselves live in the function, R-TR-2, R-TR-4). RL001: a conversation or message is
 * not the actor's (NOT_FOUND: another user's reads as missing, R-TN-5) or sits elsewhere
 * (BAD_USER_INPUT); RL002: a repeated tool_use_id lies outside the allowed spaces (CONFLICT).
 * Any other error passes through.
 */
export function refusalError(
  error: unknown,
  conversations: readonly { id: string; spaceId: string; index: number }[],
  messages: readonly { id: string; conversationId: string; index: number }[],
  rows: readonly { toolUseId: string }[],
  field: string,
): unknown {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  if ((code !== NOT_OWNED && code !== REPEAT_OUT_OF_SCOPE) || typeof detail !== 'string') return error;
  const refused = JSON.parse(detail) as Refused;
  if ('tool_use_id' in refused) {
    const index = rows.findIndex((r) => r.toolUseId === refused.tool_use_id);
    return repeatOutOfScope(field, index, refused.tool_use_id);
  }
  if (refused.kind === 'conversation') {
    const wanted = conversations.find((c) => c.id === refused.id);
    if (refused.actual === null || !wanted) return new NotFoundError('Conversation', refused.id);
    return new BadUserInputError(
      `${field}.${wanted.index}.spaceId`,
      `Conversation ${refused.id} belongs to space ${refused.actual}, not ${wanted.spaceId}.`,
    );
  }
  const wanted = messages.find((m) => m.id === refused.id);
  if (refused.actual === null || !wanted) return new NotFoundError('Message', refused.id);
  return new BadUserInputError(
    `${field}.${wanted.index}.messageId`,
    `Message ${refused.id} belongs to another conversation than ${wanted.conversationId}.`,
  );
}
