import { Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import {
  FUSION_MODE_SINGLE,
  type RecallEventOutcome,
  RecallEventService,
  RecallEventSource,
  type ResultRef,
  ResultRefType,
  SEARCH_FRESHNESS_SYNCHRONOUS,
  SEARCH_RANKING_VERSION,
} from '../recall-events';
import type { ActorContext } from '../tenancy';
import { type SnapshotColumns, type SnapshotSearchHit, type ToolResultSnapshot, ToolResultReader } from '../tool-results';
import { renderBlockLine } from './block/previously-fetched-block';
import { RecallReads } from './recall-reads.service';
import { checkRecallMemory, type RecallMemoryArgs } from './recall-search.checks';

interface RecallHit {
  ref: ResultRef;
  score: number;
  /** The snapshot as a dated block line: `- 2026-05-12 tool(args): summary`. */
  line: string;
  snapshot: ToolResultSnapshot;
}

export interface RecallMemoryOutcome extends Omit<RecallEventOutcome, 'recallEventId'> {
  /** The event's id; when storing it failed, the id it would have had (R-RC-10), and a degradation says so. */
  recallEventId: string;
  results: RecallHit[];
}

/**
 * recallMemory (R-RC-8..10): full-text search over the actor's snapshots in one space, and the
 * recall event of its results stored by the same statement — one round trip. When the event
 * cannot be stored, the search runs alone and the answer comes back degraded.
 */
@Injectable()
export class RecallSearchService {
  constructor(
    private readonly snapshots: ToolResultReader,
    private readonly events: RecallEventService,
    private readonly reads: RecallReads,
  ) {}

  async search(actor: ActorContext, args: RecallMemoryArgs, columns: SnapshotColumns = {}): Promise<RecallMemoryOutcome> {
    const { since } = checkRecallMemory(args, new Date());
    if (actor.allowedGeneration(args.spaceId) === undefined) throw new NotFoundError('Space', args.spaceId);
    const search = {
      spaceId: args.spaceId,
      query: args.query,
      conversationId: args.conversationId,
      toolName: args.toolName,
      since,
      limit: args.limit,
    };
    // The line shows the call's arguments: the input is always read. The outputs come after the
    // search, once their sizes fit the request's payload budget.
    const wanted = { input: true };
    const draft = await this.events.draft(actor, {
      spaceId: args.spaceId,
      query: args.query,
      rankingVersion: SEARCH_RANKING_VERSION,
      fusionMode: FUSION_MODE_SINGLE,
      searchFreshness: SEARCH_FRESHNESS_SYNCHRONOUS,
    });
    let hits: SnapshotSearchHit[];
    let outcome: RecallEventOutcome | null = null;
    try {
      hits = await this.reads.searchAndRecord(actor, search, wanted, draft);
    } catch (error) {
      outcome = this.events.unavailable(error, RecallEventSource.INTERNAL);
      hits = await this.snapshots.search(actor, search, wanted);
    }
    // Outside the try: only the statement's own failure means the event was not stored.
    outcome ??= await this.events.stored(actor, draft.id, RecallEventSource.INTERNAL);
    return { ...outcome, recallEventId: draft.id, results: (await this.withPayloads(actor, hits, columns)).map(hitOf) };
  }

  /** The hits with the payloads the query selects, within the request's budget (RESPONSE_TOO_LARGE beyond). */
  private async withPayloads(actor: ActorContext, hits: SnapshotSearchHit[], columns: SnapshotColumns): Promise<SnapshotSearchHit[]> {
    if (!columns.input && !columns.output) return hits;
    const loaded = new Map(
      (
        await this.snapshots.withPayloads(
          actor,
          hits.map((h) => h.snapshot),
          columns,
        )
      ).map((s) => [s.id, s]),
    );
    return hits.flatMap((hit) => {
      const snapshot = loaded.get(hit.snapshot.id);
      return snapshot ? [{ ...hit, snapshot }] : [];
    });
  }
}

function hitOf({ snapshot, score, rank }: SnapshotSearchHit): RecallHit {
  return { ref: { type: ResultRefType.TOOL_RESULT, id: snapshot.id, rank }, score, line: renderBlockLine(snapshot), snapshot };
}
