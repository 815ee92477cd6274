import { randomUUID } from 'node:crypto';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import { Injectable } from '@nestjs/common';
import { BadUserInputError } from '../common/errors/app-error';
import { checkPageSize, decodeCursor } from '../common/pagination/keyset-cursor';
import { isStorableText } from '../common/text/storable-text';
import { TokenCounter } from '../common/text/token-counter';
import { UUID_PATTERN } from '../common/uuid-pattern';
import { AppConfig } from '../config/app-config';
import { withTenantScope } from '../database/tenant-scope';
import { currentRequestBudget } from '../observability/request-context';
import { type ActorContext, type ActorOrToken, asActorError, TokenActor } from '../tenancy';
import { newMemId } from './mem-id';
import { payloadBytesAtLeast, payloadWireBytes, reservePayloadBytes } from './payload-reservation';
import { stubSourceOf, withStub } from './handle/build-handle';
import { HandleFieldsPool } from './handle/handle-fields-pool';
import { checkRepeatsVisible, conversationsOf, messagesOf, refusalError } from './batch-ownership.rules';
import { type ConversationPosition, ConversationRepository } from './conversation.repository';
import type { ToolResultInput } from './models/tool-result.input';
import type { JsonSelection, PathLookup } from './path-value';
import type { ReturnedSnapshot, ReturnedSnapshotOwner } from './returned-snapshot';
import { snapshotScopeOf } from './snapshot-scope';
import { applicableRules } from './summarizer/summarize-tool-result';
import { TeamSummaryRulesService } from './team-summary-rules/team-summary-rules.service';
import { checkToolResultBatch } from './tool-result-batch.rules';
import type { SnapshotColumns, SnapshotSearch, SnapshotSearchHit, ToolResultSnapshot } from './tool-result-snapshot';
import { ToolResultDeletionRepository } from './tool-result-deletion.repository';
import { ToolResultJsonPathRepository } from './tool-result-json-path.repository';
import { ToolResultWriteRepository, type UnsavedSnapshot } from './tool-result-write.repository';
import { type HistoryFilter, ToolResultRepository } from './tool-result.repository';
import { ToolResultMetrics } from './tool-results.metrics';

export interface RecordOutcome {
  /** In input order; a duplicate's entry is the original snapshot. */
  snapshots: ToolResultSnapshot[];
  createdCount: number;
  duplicateCount: number;
  /** Ids of the rows this call inserted. */
  createdIds: string[];
}

export interface HistoryPage {
  records: ToolResultSnapshot[];
  hasNextPage: boolean;
}

export interface RecordOptions {
  /** Where the batch sits in the request, for error paths (`input.3.toolOutput`). */
  field?: string;
  /** The stubs are being handed out by compaction: the snapshots are exempt from the cap. */
  compacted?: boolean;
  /** The payload columns to load of a repeated toolUseId's original snapshot (new ones have theirs). */
  columns?: SnapshotColumns;
}

/**
 * The snapshot write path and its reads (docs/requirements.md §4): the one way other modules reach snapshots.
 * Every read is scoped to the actor's own rows in its allowed spaces, in SQL.
 */
@Injectable()
export class ToolResultsService {
  constructor(
    private readonly reads: ToolResultRepository,
    private readonly writes: ToolResultWriteRepository,
    private readonly jsonPaths: ToolResultJsonPathRepository,
    private readonly deletions: ToolResultDeletionRepository,
    private readonly conversations: ConversationRepository,
    private readonly summaryRules: TeamSummaryRulesService,
    private readonly config: AppConfig,
    private readonly metrics: ToolResultMetrics,
    private readonly tokens: TokenCounter,
    private readonly handleFields: HandleFieldsPool,
  ) {}

  async record(actor: ActorContext, items: readonly ToolResultInput[], options: RecordOptions = {}): Promise<RecordOutcome> {
    const field = options.field ?? 'input';
    const compacted = options.compacted ?? false;
    // Serialized once: measured against the limits, then sent to the database as is.
    const serialized = items.map((item) => ({
      ...item,
      toolInputJson: JSON.stringify(item.toolInput) ?? 'null',
      toolOutputJson: JSON.stringify(item.toolOutput) ?? 'null',
    }));
    checkToolResultBatch(serialized, this.config.toolResults, new Date(), field);
    annotateSpan(() => ({
      [SPAN_ATTRIBUTES.snapshots]: items.length,
      [SPAN_ATTRIBUTES.spaceId]: [...new Set(items.map((item) => item.spaceId))].join(','),
    }));
    const conversations = conversationsOf(items, actor, field);
    const messages = messagesOf(items, field);
    // The team's summary rules as they stand now (R-RC-3): the handles keep the lines they give.
    const summaryRegistry = await this.summaryRules.registryFor(
      actor,
      items.map((item) => item.toolName),
    );
    // The parts of a handle that grow with the payload, read off the event loop when the payloads
    // (or the rules' rows) are large: the token count, and the summary, schema hint and preview.
    const texts = serialized.map((item) => payloadTextOf(item));
    const [sizeTokens, fields] = await Promise.all([
      this.tokens.countEach(actor.teamId, texts),
      this.handleFields.fieldsOf(
        actor.teamId,
        serialized.map((item, index) => ({
          output: item.toolOutput,
          text: texts[index],
          isText: typeof item.toolOutput === 'string',
          rules: applicableRules(summaryRegistry, item.toolName, item.toolInput),
        })),
      ),
    ]);
    // Built from the payload exactly as received, once; every later read serves these bytes.
    const handles = serialized.map((item, index) =>
      stubSourceOf({
        memId: newMemId(),
        toolName: item.toolName,
        toolUseId: item.toolUseId,
        sizeChars: texts[index].length,
        sizeTokens: sizeTokens[index],
        text: texts[index],
        fields: fields[index],
        toolInput: item.toolInput,
        toolOutput: item.toolOutput,
      }),
    );
    const stubs = await this.handleFields.stubsOf(actor.teamId, handles, { answerMaxTokens: this.config.lookup.answerMaxTokens });
    const rows: UnsavedSnapshot[] = serialized.map((item, index) => {
      const handle = withStub(handles[index], stubs[index]);
      return { ...item, id: randomUUID(), memId: handle.memId, sizeChars: handle.sizeChars, handle, compacted };
    });
    const scope = snapshotScopeOf(actor);
    let inserted: { id: string; createdKey: string }[];
    try {
      inserted = await this.writes.recordBatch({ ...scope, teamId: actor.teamId }, conversations, messages, rows, {
        cap: this.config.toolResults.conversationCap,
        compacted,
      });
    } catch (error) {
      throw refusalError(error, conversations, messages, rows, field);
    }
    const insertedIds = new Set(inserted.map((r) => r.id));
    const repeated = [...new Set(rows.filter((r) => !insertedIds.has(r.id)).map((r) => r.toolUseId))];
    // Read after the batch committed: only a call that repeats a tool_use_id pays this round trip
    // (and, when their payloads are selected, a second one once their sizes fit the budget).
    const duplicates =
      repeated.length > 0
        ? await this.withPayloads(actor, await this.reads.findByToolUseIds(scope, repeated, {}, options.columns), options.columns)
        : [];
    checkRepeatsVisible(repeated, duplicates, rows, field);

    const createdKeys = new Map(inserted.map((r) => [r.id, r.createdKey]));
    const byToolUseId = new Map(duplicates.map((s) => [s.toolUseId, s]));
    const snapshots = rows.map((row, index): ToolResultSnapshot => {
      const createdKey = createdKeys.get(row.id);
      if (createdKey === undefined) return byToolUseId.get(row.toolUseId) ?? firstOf(row.toolUseId);
      this.metrics.snapshotPersisted(row.toolName, actor.teamId);
      return recordOf(row, items[index].spaceId, createdKey);
    });
    // A repeat inside the batch points at the row its first occurrence created.
    function firstOf(toolUseId: string): ToolResultSnapshot {
      const first = rows.findIndex((r) => r.toolUseId === toolUseId && createdKeys.has(r.id));
      return recordOf(rows[first], items[first].spaceId, createdKeys.get(rows[first].id) as string);
    }
    return {
      snapshots,
      createdCount: inserted.length,
      duplicateCount: items.length - inserted.length,
      createdIds: inserted.map((r) => r.id),
    };
  }

  /**
   * Marks stored snapshots as compacted or not (R-TR-3): a stub handed out exempts its snapshot
   * from the cap. Returns the ids whose mark changed; a row deleted meanwhile is not among them.
   */
  setCompacted(actor: ActorContext, ids: readonly string[], compacted: boolean): Promise<string[]> {
    return ids.length === 0 ? Promise.resolve([]) : this.writes.setCompacted(actor, ids, compacted);
  }

  async findOne(actor: ActorContext, id: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    const found = await this.reads.findById(snapshotScopeOf(actor), id, {}, columns);
    return found && ((await this.withPayloads(actor, [found], columns))[0] ?? null);
  }

  findByMemId(actor: ActorContext, memId: string, columns: SnapshotColumns = {}): Promise<ToolResultSnapshot | null> {
    return this.reads.findByMemId(snapshotScopeOf(actor), memId, columns);
  }

  /** The actor's snapshot by mem id, its output loaded only when it has at most `maxChars` characters (else left out). */
  findByMemIdWithSmallOutput(actor: ActorContext, memId: string, maxChars: number): Promise<ToolResultSnapshot | null> {
    return this.reads.findByMemIdWithSmallOutput(snapshotScopeOf(actor), memId, maxChars);
  }

  /** Handles of the actor's snapshots among these tool_use ids. */
  findByToolUseIds(actor: ActorContext, toolUseIds: readonly string[]): Promise<ToolResultSnapshot[]> {
    return toolUseIds.length === 0 ? Promise.resolve([]) : this.reads.findByToolUseIds(snapshotScopeOf(actor), toolUseIds);
  }

  /** What a selection picks in the actor's snapshot, evaluated in PostgreSQL; null: no such snapshot. */
  findJsonPathValue(actor: ActorContext, memId: string, selection: JsonSelection, maxChars: number): Promise<PathLookup | null> {
    return this.jsonPaths.findJsonPathValue({ ...snapshotScopeOf(actor), teamId: actor.teamId }, memId, selection, maxChars);
  }

  /**
   * `findJsonPathValue` of a single value, the caller's actor read by the same statement when it is
   * a `TokenActor` (one round trip for the request); a new user is provisioned and read the guard's way.
   */
  async findJsonPathValueAs(
    caller: ActorOrToken,
    memId: string,
    selection: Exclude<JsonSelection, { kind: 'nodes' }>,
    maxChars: number,
  ): Promise<PathLookup | null> {
    if (!(caller instanceof TokenActor)) return this.findJsonPathValue(caller, memId, selection, maxChars);
    const read = await this.jsonPaths.findPathValueForToken(caller.claims, memId, selection, maxChars).catch((error: unknown) => {
      throw asActorError(error);
    });
    if (read === 'unresolved') return this.findJsonPathValue(await caller.resolve(), memId, selection, maxChars);
    caller.settle(read.allowedSpaces);
    return read.lookup;
  }

  /** The actor's snapshot's payload as JSON text when it has at most `maxChars` characters, and its size; null: no such snapshot. */
  findJsonDocument(actor: ActorContext, memId: string, maxChars: number): Promise<{ sizeChars: number; documentText?: string } | null> {
    return this.jsonPaths.findJsonDocument(snapshotScopeOf(actor), memId, maxChars);
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

  /** Retention's sweep (R-RT-1): the team's oldest snapshots past the cutoff; how many went. */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return this.deletions.deleteExpiredBatch(teamId, cutoff, limit);
  }

  /** A user's deletion (R-RT-4): every snapshot, message and conversation of theirs, counted by table. */
  async deleteAllOfUser(
    teamId: string,
    userId: string,
  ): Promise<{ conversations: number; messages: number; message_tool_results: number }> {
    const snapshots = await this.deletions.deleteAllOfUser(teamId, userId);
    const { messages, conversations } = await this.conversations.deleteAllOfUser(teamId, userId);
    return { conversations, messages, message_tool_results: snapshots };
  }

  /**
   * Retention (R-RT-1): one batch of the idle conversations of these spaces (a team's), oldest
   * first after `after`: locked, then deleted with their messages if still idle. `scanned` is how
   * many were locked (fewer than `limit`: the scan is done), `last` where the next batch goes on.
   */
  async deleteIdleConversationsBatch(
    teamId: string,
    spaceIds: readonly string[],
    cutoff: Date,
    after: ConversationPosition | null,
    limit: number,
  ): Promise<{ conversations: number; messages: number; scanned: number; last: ConversationPosition | null }> {
    if (spaceIds.length === 0) return { conversations: 0, messages: 0, scanned: 0, last: after };
    const locked = await this.conversations.lockIdle(teamId, spaceIds, cutoff, after, limit);
    const deleted = await this.conversations.deleteIdle(
      teamId,
      locked.map((c) => c.id),
      cutoff,
    );
    return { ...deleted, scanned: locked.length, last: locked.at(-1) ?? after };
  }
}

/** A snapshot this call created, from what it sent and what the database decided. */
/** The payload text the model saw (build-handle's payloadText), without serializing the output again. */
function payloadTextOf(item: { toolOutput: unknown; toolOutputJson: string }): string {
  return typeof item.toolOutput === 'string' ? item.toolOutput : item.toolOutputJson;
}

function recordOf(row: UnsavedSnapshot, spaceId: string, createdKey: string): ToolResultSnapshot {
  return {
    id: row.id,
    memId: row.memId,
    spaceId,
    conversationId: row.conversationId,
    messageId: row.messageId,
    toolUseId: row.toolUseId,
    toolName: row.toolName,
    toolInput: row.toolInput,
    toolOutput: row.toolOutput,
    sizeChars: row.sizeChars,
    createdAt: new Date(createdKey),
    createdKey,
    handle: row.handle,
    compacted: row.compacted,
  };
}
