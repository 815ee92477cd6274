import { Injectable } from '@nestjs/common';
import { BadUserInputError } from '../common/errors/app-error';
import { checkPageSize, decodeCursor } from '../common/pagination/keyset-cursor';
import { isStorableText } from '../common/text/storable-text';
import { UUID_PATTERN } from '../common/uuid-pattern';
import { AppConfig } from '../config/app-config';
import { withTenantScope } from '../database/tenant-scope';
import { currentRequestBudget } from '../observability/request-context';
import type { ActorContext } from '../tenancy';
import { ConversationRepository } from './conversation.repository';
import { payloadBytesAtLeast, payloadWireBytes, reservePayloadBytes } from './payload-reservation';
import type { ReturnedSnapshot, ReturnedSnapshotOwner } from './returned-snapshot';
import { snapshotScopeOf } from './snapshot-scope';
import type { SnapshotColumns, SnapshotSearch, SnapshotSearchHit, ToolResultSnapshot } from './tool-result-snapshot';
import { type HistoryFilter, ToolResultRepository } from './tool-result.repository';

export interface HistoryPage {
  records: ToolResultSnapshot[];
  hasNextPage: boolean;
}

/**
 * Snapshot reads (docs/requirements.md §4): every one scoped to the actor's own rows in its allowed
 * spaces, in SQL; payloads loaded only within the request's response budget.
 */
@Injectable()
export class ToolResultReader {
  constructor(
    private readonly reads: ToolResultRepository,
    private readonly conversations: ConversationRepository,
    private readonly config: AppConfig,
  ) {}

  async findOne(actor: ActorContext, id: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    const found = await this.reads.findById(snapshotScopeOf(actor), id, {}, columns);
    return found && ((await this.withPayloads(actor, [found], columns))[0] ?? null);
  }

  findByMemId(actor: ActorContext, memId: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    return this.reads.findByMemId(snapshotScopeOf(actor), memId, columns);
  }

  /**
   * The actor's snapshot by mem id, its output loaded only when it has at most `maxChars`
   * characters, or with `strings` when it is a string (else left out).
   */
  findByMemIdWithSmallOutput(
    actor: ActorContext,
    memId: string,
    maxChars: number,
    options: { strings?: boolean } = {},
  ): Promise<ToolResultSnapshot | null> {
    return this.reads.findByMemIdWithSmallOutput(snapshotScopeOf(actor), memId, maxChars, options);
  }

  /** Handles of the actor's snapshots among these tool_use ids, with the sizes of the `measured` payload columns. */
  findByToolUseIds(actor: ActorContext, toolUseIds: readonly string[], measured: SnapshotColumns = {}): Promise<ToolResultSnapshot[]> {
    return toolUseIds.length === 0 ? Promise.resolve([]) : this.reads.findByToolUseIds(snapshotScopeOf(actor), toolUseIds, {}, measured);
  }

  /**
   * The snapshots among these ids that a recall event of `owner` can still show (R-FB-8): the
   * owner's, in the actor's team, in the owner's space at the given generation and still at its
   * space's current one. Ids that cannot name a snapshot are skipped. Read team-wide, since the
   * owner may be another member than the reader (an admin inspecting the team); a caller passes
   * the owner of an event the actor may see. Only the address and the stub come back.
   */
  async findReturned(actor: ActorContext, owner: ReturnedSnapshotOwner, ids: readonly string[]): Promise<ReturnedSnapshot[]> {
    const snapshotIds = [...new Set(ids.filter((id) => UUID_PATTERN.test(id)).map((id) => id.toLowerCase()))];
    if (snapshotIds.length === 0) return [];
    const rows = await withTenantScope({ teamId: actor.teamId }, () => this.reads.findReturned(actor.teamId, owner, snapshotIds));
    return rows.map((s) => ({
      id: s.id,
      memId: s.memId,
      toolName: s.toolName,
      stub: s.handle.stub,
      sizeTokens: s.handle.sizeTokens,
      createdAt: s.createdAt,
    }));
  }

  /** The full-text search over the actor's snapshots in one space, ranked (R-RC-8). */
  search(actor: ActorContext, search: SnapshotSearch, columns: SnapshotColumns = {}): Promise<SnapshotSearchHit[]> {
    return this.reads.search(snapshotScopeOf(actor), search, columns);
  }

  /** The K most recent snapshots of the actor's conversation, newest first. */
  recentInConversation(
    actor: ActorContext,
    conversationId: string,
    limit: number,
    columns: SnapshotColumns = {},
  ): Promise<ToolResultSnapshot[]> {
    return this.reads.recentInConversation(snapshotScopeOf(actor), conversationId, limit, columns);
  }

  /** The actor's own conversation in one of its allowed spaces, or null (a missing one and another's alike). */
  async findOwnConversation(actor: ActorContext, conversationId: string): Promise<{ id: string; spaceId: string } | null> {
    const conversation = await this.conversations.findOwnConversation(actor, conversationId);
    return conversation && actor.allowedGeneration(conversation.spaceId) !== undefined ? conversation : null;
  }

  async history(
    actor: ActorContext,
    filter: HistoryFilter,
    first: number,
    after?: string | null,
    columns: SnapshotColumns = {},
  ): Promise<HistoryPage> {
    const limit = checkPageSize(first);
    if (filter.toolName && !isStorableText(filter.toolName))
      throw new BadUserInputError('toolName', 'toolName contains a NUL character or an unpaired surrogate; remove it.');
    const position = after ? decodeCursor(after) : null;
    const records = await this.reads.history(snapshotScopeOf(actor), filter, position, limit + 1, {}, columns);
    return { records: await this.withPayloads(actor, records.slice(0, limit), columns), hasNextPage: records.length > limit };
  }

  /**
   * The second half of a read that returns payloads: the snapshots were read with their sizes only
   * (one statement, as a read without payloads). The bytes they take at least (one a character) are
   * reserved in the request's budget — RESPONSE_TOO_LARGE, naming RESPONSE_MAX_PAYLOAD_BYTES, when
   * the request would pass it — and only then are the payloads loaded by id, in the same scope; once
   * loaded, the rest of their exact bytes on the wire (JSON escapes, UTF-8) is reserved too, or the
   * read is refused the same way. A payload already loaded is not loaded again; a row deleted in
   * between is left out, as if deleted before.
   */
  async withPayloads(actor: ActorContext, snapshots: ToolResultSnapshot[], columns: SnapshotColumns = {}): Promise<ToolResultSnapshot[]> {
    if (!columns.input && !columns.output) return snapshots;
    const budget = currentRequestBudget();
    const maxBytes = this.config.toolResults.responseMaxPayloadBytes;
    const atLeast = payloadBytesAtLeast(snapshots, columns);
    reservePayloadBytes(budget, atLeast, maxBytes);
    const loaded = await this.loadPayloads(actor, snapshots, columns);
    reservePayloadBytes(budget, Math.max(0, payloadWireBytes(loaded, columns) - atLeast), maxBytes);
    return loaded;
  }

  private async loadPayloads(
    actor: ActorContext,
    snapshots: ToolResultSnapshot[],
    columns: SnapshotColumns,
  ): Promise<ToolResultSnapshot[]> {
    const missing: SnapshotColumns = {
      input: columns.input === true && snapshots.some((s) => s.toolInput === undefined),
      output: columns.output === true && snapshots.some((s) => s.toolOutput === undefined),
    };
    if (snapshots.length === 0 || (!missing.input && !missing.output)) return snapshots;
    const payloads = await this.reads.loadPayloads(
      snapshotScopeOf(actor),
      snapshots.map((s) => s.id),
      missing,
    );
    return snapshots.flatMap((snapshot) => {
      const loaded = payloads.get(snapshot.id);
      return loaded ? [{ ...snapshot, ...loaded }] : [];
    });
  }
}
