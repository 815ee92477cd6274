import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { LoopTurns } from '../common/concurrency/loop-turns';
import { TokenCounter } from '../common/text/token-counter';
import { AppConfig } from '../config/app-config';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import type { ActorContext } from '../tenancy';
import { checkRepeatsVisible, conversationsOf, messagesOf, refusalError } from './batch-ownership.checks';
import { stubSourceOf, withStub } from './handle/build-handle';
import { HandleFieldsPool } from './handle/handle-fields-pool';
import { newMemId } from './mem-id';
import type { ToolResultInput } from './models/tool-result.input';
import { snapshotScopeOf } from './snapshot-scope';
import { applicableRules } from './summarizer/summarize-tool-result';
import { TeamSummaryRulesService } from './team-summary-rules/team-summary-rules.service';
import { checkToolResultBatch } from './tool-result-batch.checks';
import { ToolResultReader } from './tool-result-reader.service';
import type { SnapshotColumns, ToolResultSnapshot } from './tool-result-snapshot';
import { ToolResultWriteRepository, type UnsavedSnapshot } from './tool-result-write.repository';
import { ToolResultMetrics } from './tool-results.metrics';

export interface RecordOutcome {
  /** In input order; a duplicate's entry is the original snapshot. */
  snapshots: ToolResultSnapshot[];
  createdCount: number;
  duplicateCount: number;
  /** Ids of the rows this call inserted. */
  createdIds: string[];
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
 * The snapshot write path (docs/requirements.md §4, R-TR-1..5): a batch checked, its handles and
 * stubs built once from the payloads as received, stored in one statement; and the compacted mark.
 */
@Injectable()
export class ToolResultWriter {
  constructor(
    private readonly writes: ToolResultWriteRepository,
    private readonly reader: ToolResultReader,
    private readonly summaryRules: TeamSummaryRulesService,
    private readonly config: AppConfig,
    private readonly metrics: ToolResultMetrics,
    private readonly tokens: TokenCounter,
    private readonly handleFields: HandleFieldsPool,
  ) {}

  async record(actor: ActorContext, items: readonly ToolResultInput[], options: RecordOptions = {}): Promise<RecordOutcome> {
    const field = options.field ?? 'input';
    const compacted = options.compacted ?? false;
    // Serialized once: measured against the limits, then sent to the database as is. One payload
    // at a time, other requests taking their turn between them (a 2 MB output is about 25 ms).
    const serialized: (ToolResultInput & { toolInputJson: string; toolOutputJson: string })[] = [];
    const turns = new LoopTurns();
    for (const item of items) {
      const toolInputJson = JSON.stringify(item.toolInput) ?? 'null';
      const toolOutputJson = JSON.stringify(item.toolOutput) ?? 'null';
      serialized.push({ ...item, toolInputJson, toolOutputJson });
      await turns.after(toolInputJson.length + toolOutputJson.length);
    }
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
        ? await this.reader.withPayloads(actor, await this.reader.findByToolUseIds(actor, repeated, options.columns), options.columns)
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
}

/** The payload text the model saw (build-handle's payloadText), without serializing the output again. */
function payloadTextOf(item: { toolOutput: unknown; toolOutputJson: string }): string {
  return typeof item.toolOutput === 'string' ? item.toolOutput : item.toolOutputJson;
}

/** A snapshot this call created, from what it sent and what the database decided. */
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
