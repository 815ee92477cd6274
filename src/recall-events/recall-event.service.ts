import { Injectable, Logger } from '@nestjs/common';
import { NotFoundError } from '../common/errors/app-error';
import { withTenantScope } from '../database/tenant-scope';
import { type ActorContext, FeatureFlagKey, FeatureFlagService, Scope } from '../tenancy';
import { type ReturnedSnapshot, snapshotScopeOf, ToolResultReader } from '../tool-results';
import type { RecallEventDraft, RecallEventRecord } from './recall-event.record';
import {
  type RecallEventPosition,
  type RecallEventReader,
  RecallEventRepository,
  type UnplacedRecallEvent,
} from './recall-event.repository';
import { RecallEventMetrics } from './recall-events.metrics';
import {
  checkExternalRecallEvent,
  eventQuery,
  type ExternalRecallEventInput,
  newRecallEventId,
  queryFingerprint,
  RECALL_CONTRACT_VERSION,
  RecallEventSource,
  type ResultRef,
  ResultRefType,
  SNAPSHOT_UNAVAILABLE,
  storedQueryText,
  SUBMIT_FEEDBACK_ACTION,
} from './recall-event.checks';

export interface SuggestedAction {
  action: string;
  recallEventId: string;
}

/** What every recall answer says about its own event (R-RC-9, R-RC-10). */
export interface RecallEventOutcome {
  /** Null when the event could not be stored. */
  recallEventId: string | null;
  suggestedActions: SuggestedAction[];
  degradations: string[];
}

/** A ref an event returned, with its snapshot while that is still readable (R-FB-8). */
export interface ReturnedResult extends ResultRef {
  snapshot: ReturnedSnapshot | null;
}

/** How one of our own recalls was answered, for its event. */
export interface InternalRecall {
  spaceId: string;
  query: string | null;
  rankingVersion: string;
  fusionMode: string | null;
  searchFreshness: string | null;
}

/**
 * Recall events: stored for every recall of ours and for external retrievers', read back while
 * their space is ACTIVE at the generation they were stored with. Storing one never fails a
 * recall: the answer comes back degraded instead.
 */
@Injectable()
export class RecallEventService {
  private readonly logger = new Logger(RecallEventService.name);

  constructor(
    private readonly events: RecallEventRepository,
    private readonly flags: FeatureFlagService,
    private readonly metrics: RecallEventMetrics,
    private readonly snapshots: ToolResultReader,
  ) {}

  /** The event of a recall the actor is making in an allowed space, all but its refs. */
  async draft(actor: ActorContext, recall: InternalRecall): Promise<RecallEventDraft> {
    return {
      ...(await this.unplacedDraft(actor, recall)),
      spaceId: recall.spaceId,
      spaceGeneration: actor.allowedGeneration(recall.spaceId) as number,
    };
  }

  /** A draft whose space the storing statement fills in (the space of the conversation read). */
  async unplacedDraft(
    actor: Pick<ActorContext, 'teamId' | 'userId'>,
    recall: Omit<InternalRecall, 'spaceId'>,
  ): Promise<UnplacedRecallEvent> {
    const query = eventQuery(recall.query);
    const queryTextEnabled = query !== null && (await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_QUERY_TEXT_ENABLED));
    return {
      id: newRecallEventId(),
      teamId: actor.teamId,
      profileId: actor.userId,
      queryFingerprint: queryFingerprint(query),
      queryText: storedQueryText(query, queryTextEnabled),
      contractVersion: RECALL_CONTRACT_VERSION,
      rankingVersion: recall.rankingVersion,
      fusionMode: recall.fusionMode,
      searchFreshness: recall.searchFreshness,
      degradedBranches: [],
      semanticGroups: null,
      authoredAlternatives: null,
      clarificationOutcome: null,
      source: RecallEventSource.INTERNAL,
    };
  }

  /** Sets the refs of an event stored a moment ago to the rows finally shown, and its tool names to theirs. */
  replaceResults(actor: ActorContext, id: string, results: readonly ResultRef[], toolNames: readonly string[]): Promise<void> {
    return this.events.replaceResults(actor.teamId, id, results, toolNames);
  }

  /**
   * Stores the event of a recall already answered, with the tool names of the snapshots it showed;
   * a failure degrades the answer instead of failing it.
   */
  async store(
    actor: ActorContext,
    event: RecallEventDraft,
    results: ResultRef[],
    toolNames: readonly string[],
  ): Promise<RecallEventOutcome> {
    try {
      await this.events.insert({ ...event, results, toolNames: [...toolNames] });
    } catch (error) {
      return this.unavailable(error, RecallEventSource.INTERNAL);
    }
    return this.stored(actor, event.id, RecallEventSource.INTERNAL);
  }

  /** The outcome of an event that is stored: the feedback suggestion when the team collects feedback. */
  async stored(actor: ActorContext, recallEventId: string, source: RecallEventSource): Promise<RecallEventOutcome> {
    this.metrics.recallEventRecorded(source, 'stored');
    const feedback = await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED);
    return { recallEventId, suggestedActions: feedback ? [{ action: SUBMIT_FEEDBACK_ACTION, recallEventId }] : [], degradations: [] };
  }

  /** The outcome when the event could not be stored (R-RC-10): no suggestion, a degradation. */
  unavailable(error: unknown, source: RecallEventSource): RecallEventOutcome {
    this.metrics.recallEventRecorded(source, 'degraded');
    // The error's code only: its message may quote the statement's values.
    this.logger.warn({
      msg: 'recall event not stored; the recall is answered degraded',
      code: (error as { code?: unknown })?.code ?? null,
    });
    return { recallEventId: null, suggestedActions: [], degradations: [SNAPSHOT_UNAVAILABLE] };
  }

  /** An external retriever's recall (R-RC-11), in a space of the actor's allowed set. */
  async recordExternal(actor: ActorContext, input: ExternalRecallEventInput): Promise<RecallEventRecord> {
    checkExternalRecallEvent(input);
    const generation = actor.allowedGeneration(input.spaceId);
    if (generation === undefined) throw new NotFoundError('Space', input.spaceId);
    const queryTextEnabled =
      input.query !== null &&
      input.query !== undefined &&
      (await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_QUERY_TEXT_ENABLED));
    const stored = await this.events.insertExternal(snapshotScopeOf(actor), {
      id: newRecallEventId(),
      teamId: actor.teamId,
      profileId: actor.userId,
      spaceId: input.spaceId,
      spaceGeneration: generation,
      queryFingerprint: queryFingerprint(input.query),
      queryText: storedQueryText(input.query, queryTextEnabled),
      contractVersion: input.contractVersion,
      rankingVersion: input.rankingVersion ?? null,
      fusionMode: input.fusionMode ?? null,
      searchFreshness: input.searchFreshness ?? null,
      degradedBranches: [...(input.degradedBranches ?? [])],
      results: input.results.map((ref) => ({ type: ref.type, id: ref.id, rank: ref.rank })),
      semanticGroups: input.semanticGroups ?? null,
      authoredAlternatives: input.authoredAlternatives ?? null,
      clarificationOutcome: input.clarificationOutcome ?? null,
      source: RecallEventSource.EXTERNAL,
    });
    this.metrics.recallEventRecorded(RecallEventSource.EXTERNAL, 'stored');
    return stored;
  }

  /**
   * The events among these ids the actor may judge, as stored, whatever their space's state: its
   * own (memory:read), or any of its team's (admin), as `find` sees them — a teammate's event is
   * unknown to a member. For Feedback, which checks each against the actor's current allowed-space
   * set (R-FB-4).
   */
  async findJudgeable(actor: ActorContext, ids: readonly string[]): Promise<Map<string, RecallEventRecord>> {
    const reader = readerOf(actor);
    const events = await asReader(reader, () => this.events.findByIds(reader, [...new Set(ids)]));
    return new Map(events.map((e) => [e.id, e]));
  }

  /**
   * The actor's own event (memory:read) or any of its team's (admin), while its space is ACTIVE at
   * the stored generation; null otherwise, and for another team's alike (R-FB-8).
   */
  find(actor: ActorContext, id: string): Promise<RecallEventRecord | null> {
    const reader = readerOf(actor);
    return asReader(reader, () => this.events.findVisible(reader, id));
  }

  /**
   * The event's refs in rank order, each TOOL_RESULT ref with its snapshot while that still exists
   * and is readable as the event stored it (the event's user's, in its space, at its generation):
   * one read for all of them. The event is one the actor may see.
   */
  async returnedResults(actor: ActorContext, event: RecallEventRecord): Promise<ReturnedResult[]> {
    const snapshotIds = event.results.filter((ref) => ref.type === ResultRefType.TOOL_RESULT).map((ref) => ref.id);
    const owner = { userId: event.profileId, spaceId: event.spaceId, spaceGeneration: event.spaceGeneration };
    const snapshots = new Map((await this.snapshots.findReturned(actor, owner, snapshotIds)).map((s) => [s.id, s]));
    return [...event.results]
      .sort((a, b) => a.rank - b.rank)
      .map((ref) => ({
        type: ref.type,
        id: ref.id,
        rank: ref.rank,
        snapshot: ref.type === ResultRefType.TOOL_RESULT ? (snapshots.get(ref.id.toLowerCase()) ?? null) : null,
      }));
  }

  /** Retention (R-RT-3): the team's oldest events past the cutoff after `after`, locked until the caller's transaction ends. */
  lockExpired(teamId: string, cutoff: Date, after: RecallEventPosition | null, limit: number): Promise<RecallEventPosition[]> {
    return this.events.lockExpired(teamId, cutoff, after, limit);
  }

  /** Retention (R-RT-3): deletes these events, of any team; how many went. */
  deleteEvents(teamId: string, ids: readonly string[]): Promise<number> {
    return this.events.deleteEvents(teamId, ids);
  }

  /** A user's deletion (R-RT-4): the events of every recall the user made; how many went. */
  deleteAllOfUser(teamId: string, userId: string): Promise<number> {
    return this.events.deleteAllOfUser(teamId, userId);
  }
}

/** Whose events the actor reads: its own, or (admin) every user's of its team. */
function readerOf(actor: ActorContext): RecallEventReader {
  return { teamId: actor.teamId, userId: actor.hasScope(Scope.ADMIN) ? null : actor.userId };
}

/** A team-wide reader's statements run with the request's user unset: row-level security is user-deep on events (R-TN-8). */
function asReader<T>(reader: RecallEventReader, work: () => Promise<T>): Promise<T> {
  return reader.userId === null ? withTenantScope({ teamId: reader.teamId }, work) : work();
}
