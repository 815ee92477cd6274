import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { BadUserInputError, NotFoundError } from '../common/errors/app-error';
import { checkPageSize, decodeCursor } from '../common/pagination/keyset-cursor';
import { AppConfig } from '../config/app-config';
import type { ActorContext } from '../tenancy/actor-context';
import { newMemId } from './mem-id';
import type { SnapshotRecord, ToolResultFields } from './snapshot-record';
import { payloadText } from '../recall/snapshot-handle';
import { checkToolResultBatch } from './tool-result-batch.rules';
import { type HistoryFilter, type NewSnapshot, ToolResultRepository } from './tool-result.repository';
import { ToolResultMetrics } from './tool-results.metrics';

export interface ToolResultToRecord extends ToolResultFields {
  spaceId: string;
  createdAt?: Date | null;
}

export interface RecordOutcome {
  /** In input order; a duplicate's entry is the original snapshot. */
  snapshots: SnapshotRecord[];
  createdCount: number;
  duplicateCount: number;
}

export interface HistoryPage {
  records: SnapshotRecord[];
  hasNextPage: boolean;
}

/** The snapshot write path and its reads (SPEC §4). */
@Injectable()
export class ToolResultsService {
  constructor(
    private readonly repository: ToolResultRepository,
    private readonly config: AppConfig,
    private readonly metrics: ToolResultMetrics,
  ) {}

  async record(actor: ActorContext, items: readonly ToolResultToRecord[], field = 'input'): Promise<RecordOutcome> {
    checkToolResultBatch(items, this.config.toolResults, new Date(), field);
    const conversations = conversationsOf(items, actor, field);
    const messages = messagesOf(items, field);
    const rows: NewSnapshot[] = items.map((item) => ({
      ...item,
      id: randomUUID(),
      memId: newMemId(),
      sizeChars: payloadText(item.toolOutput).length,
    }));
    const userId = actor.userId;

    const { createdIds, stored } = await this.repository.inTransaction(async () => {
      await this.repository.insertMissingConversations(userId, conversations);
      const owned = await this.repository.lockOwnConversations(userId, conversations.map((c) => c.id));
      for (const wanted of conversations) {
        const mine = owned.find((c) => c.id === wanted.id);
        // Another user's conversation reads exactly as a missing one (R-TN-5).
        if (!mine) throw new NotFoundError('Conversation', wanted.id);
        if (mine.spaceId !== wanted.spaceId) {
          throw new BadUserInputError(`${field}.${wanted.index}.spaceId`, `Conversation ${wanted.id} belongs to space ${mine.spaceId}, not ${wanted.spaceId}.`);
        }
      }
      await this.repository.insertMissingMessages(userId, messages);
      const ownMessages = await this.repository.findOwnMessages(userId, messages.map((m) => m.id));
      for (const wanted of messages) {
        const mine = ownMessages.find((m) => m.id === wanted.id);
        if (!mine) throw new NotFoundError('Message', wanted.id);
        if (mine.conversationId !== wanted.conversationId) {
          throw new BadUserInputError(`${field}.${wanted.index}.messageId`, `Message ${wanted.id} belongs to another conversation than ${wanted.conversationId}.`);
        }
      }
      const createdIds = await this.repository.insertSnapshots(userId, rows);
      await this.repository.trimConversations(userId, conversations.map((c) => c.id), this.config.toolResults.conversationCap);
      const stored = await this.repository.findByToolUseIds(userId, [...new Set(items.map((i) => i.toolUseId))]);
      return { createdIds: new Set(createdIds), stored };
    });

    for (const row of rows) if (createdIds.has(row.id)) this.metrics.snapshotPersisted(row.toolName);
    const byToolUseId = new Map(stored.map((s) => [s.toolUseId, s]));
    return {
      // A row an import placed past the cap is gone already; report it as written.
      snapshots: rows.map((row, index) => byToolUseId.get(row.toolUseId) ?? asRecord(row, items[index].spaceId)),
      createdCount: createdIds.size,
      duplicateCount: items.length - createdIds.size,
    };
  }

  findOne(actor: ActorContext, id: string): Promise<SnapshotRecord | null> {
    return this.repository.findById(actor.userId, id);
  }

  async history(actor: ActorContext, filter: HistoryFilter, first: number, after?: string | null): Promise<HistoryPage> {
    const limit = checkPageSize(first);
    const position = after ? decodeCursor(after) : null;
    const records = await this.repository.history(actor.userId, filter, position, limit + 1);
    return { records: records.slice(0, limit), hasNextPage: records.length > limit };
  }
}

/** Distinct conversations of a batch, each in an allowed space and in one space only. */
function conversationsOf(items: readonly ToolResultToRecord[], actor: ActorContext, field: string) {
  const byId = new Map<string, { id: string; spaceId: string; index: number }>();
  items.forEach((item, index) => {
    if (actor.allowedGeneration(item.spaceId) === undefined) throw new NotFoundError('Space', item.spaceId);
    const seen = byId.get(item.conversationId);
    if (seen && seen.spaceId !== item.spaceId) {
      throw new BadUserInputError(`${field}.${index}.spaceId`, `Conversation ${item.conversationId} appears with two spaces in this batch.`);
    }
    if (!seen) byId.set(item.conversationId, { id: item.conversationId, spaceId: item.spaceId, index });
  });
  return [...byId.values()];
}

function messagesOf(items: readonly ToolResultToRecord[], field: string) {
  const byId = new Map<string, { id: string; conversationId: string; index: number }>();
  items.forEach((item, index) => {
    const seen = byId.get(item.messageId);
    if (seen && seen.conversationId !== item.conversationId) {
      throw new BadUserInputError(`${field}.${index}.messageId`, `Message ${item.messageId} appears with two conversations in this batch.`);
    }
    if (!seen) byId.set(item.messageId, { id: item.messageId, conversationId: item.conversationId, index });
  });
  return [...byId.values()];
}

function asRecord(row: NewSnapshot, spaceId: string): SnapshotRecord {
  const createdAt = row.createdAt ?? new Date();
  return { ...row, spaceId, createdAt, createdKey: createdAt.toISOString().replace('Z', '000Z') };
}
