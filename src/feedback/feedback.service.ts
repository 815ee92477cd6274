import { Injectable, Logger } from '@nestjs/common';
import { annotateSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import { newUlid } from '../common/ids/new-ulid';
import { FeatureDisabledError } from '../common/errors/app-error';
import { transientFault } from '../database/transient-fault';
import { recallAccountOf, type RecallEventRecord, RecallEventService } from '../recall-events';
import { type ActorContext, FeatureFlagKey, FeatureFlagService } from '../tenancy';
import type { NewFeedbackEvent } from './feedback-event.record';
import { type ClientKeyedEvent, FeedbackEventRepository } from './feedback-event.repository';
import { feedbackItemDigest, judgmentOf } from './feedback-item-digest';
import { FeedbackMetrics } from './feedback.metrics';
import { checkFeedbackBatch, conflictProblem, judgmentProblem, recallProblem, refsProblem, transientProblem } from './feedback.checks';
import { type FeedbackItem, type ItemFailure } from './feedback-vocabulary';

export interface SubmissionOutcome {
  /** Items recorded (new or replayed), all before `error.failedIndex`. */
  recordedCount: number;
  /** Their ids, in input order. */
  feedbackEventIds: string[];
  error: (ItemFailure & { failedIndex: number }) | null;
}

export function newFeedbackEventId(): string {
  return `fb_${newUlid()}`;
}

/**
 * Feedback submission (R-FB-1..7): items in order, each committed before the next is tried; the
 * first failure stops the batch and says what to do. It writes feedback rows and metrics only
 * (R-FB-6): recall events, snapshots, spaces and flags are read, never changed.
 */
@Injectable()
export class FeedbackService {
  private readonly logger = new Logger(FeedbackService.name);

  constructor(
    private readonly feedback: FeedbackEventRepository,
    private readonly recallEvents: RecallEventService,
    private readonly flags: FeatureFlagService,
    private readonly metrics: FeedbackMetrics,
  ) {}

  async submit(actor: ActorContext, items: readonly FeedbackItem[]): Promise<SubmissionOutcome> {
    checkFeedbackBatch(items);
    annotateSpan({ [SPAN_ATTRIBUTES.items]: items.length });
    if (!(await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED))) {
      this.metrics.submission('disabled');
      throw new FeatureDisabledError(FeatureFlagKey.RECALL_FEEDBACK_ENABLED);
    }
    // Read once up front: the recall events named and the items already recorded under their client
    // ids. A transient fault here stops the batch before its first item, nothing recorded (R-FB-2).
    const clientIds = items.flatMap((item) => (item.clientFeedbackId ? [item.clientFeedbackId] : []));
    let events: Map<string, RecallEventRecord>;
    let keyed: Map<string, ClientKeyedEvent>;
    try {
      [events, keyed] = await Promise.all([
        this.recallEvents.findJudgeable(
          actor,
          items.map((item) => item.recallEventId),
        ),
        this.feedback.findByClientIds(actor.teamId, actor.userId, clientIds),
      ]);
    } catch (error) {
      return this.faulted(error, [], 0, 'read');
    }

    const ids: string[] = [];
    for (const [index, item] of items.entries()) {
      const event = events.get(item.recallEventId) ?? null;
      const key = item.clientFeedbackId ?? null;
      // The digest is taken before validation: a replay is recognised even when its recall went stale.
      const digest = key === null ? null : feedbackItemDigest(item, event?.results ?? []);
      const existing = key === null ? undefined : keyed.get(key);
      if (key !== null && existing !== undefined) {
        if (!sameItem(existing, digest)) return this.stopped(ids, index, conflictProblem(key, existing.id));
        ids.push(existing.id);
        continue;
      }
      const problem =
        judgmentProblem(item) ??
        recallProblem(item.recallEventId, event, (spaceId) => actor.allowedGeneration(spaceId)) ??
        refsProblem(item, (event as RecallEventRecord).results);
      if (problem !== null) return this.stopped(ids, index, problem);
      let recorded: ClientKeyedEvent;
      try {
        recorded = await this.feedback.insert(feedbackEventOf(actor, item, event as RecallEventRecord, digest));
      } catch (error) {
        return this.faulted(error, ids, index, 'write');
      }
      // Another request recorded the same key first, with other content.
      if (key !== null && !sameItem(recorded, digest)) return this.stopped(ids, index, conflictProblem(key, recorded.id));
      ids.push(recorded.id);
      if (key !== null) keyed.set(key, recorded);
      this.metrics.itemRecorded(item);
    }
    this.metrics.submission('recorded');
    return { recordedCount: ids.length, feedbackEventIds: ids, error: null };
  }

  /**
   * A database error at item `index`: a transient one stops the batch there with RETRY_FROM_FAILED
   * (R-FB-2); any other is not the client's to retry and surfaces as an internal error.
   */
  private faulted(error: unknown, ids: string[], index: number, during: 'read' | 'write'): SubmissionOutcome {
    const fault = transientFault(error);
    if (fault === null) throw error;
    // The SQLSTATE only: never the statement, its values or the driver's message.
    const code = (error as { code?: unknown })?.code;
    this.logger.warn({
      msg: 'feedback batch stopped: transient database fault',
      during,
      failedIndex: index,
      code: typeof code === 'string' ? code : null,
    });
    // Nothing is written while reading, whatever became of the connection.
    return this.stopped(ids, index, transientProblem(during === 'read' || fault === 'ROLLED_BACK'));
  }

  private stopped(ids: string[], failedIndex: number, problem: ItemFailure): SubmissionOutcome {
    this.metrics.submission(ids.length > 0 ? 'partial' : 'rejected');
    return { recordedCount: ids.length, feedbackEventIds: ids, error: { ...problem, failedIndex } };
  }

  /** Retention (R-RT-3): the team's oldest feedback events past the cutoff; how many went. */
  deleteExpiredBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return this.feedback.deleteExpiredBatch(teamId, cutoff, limit);
  }

  /** Retention (R-RT-3): clears the comments of the team's feedback events past the cutoff; how many were cleared. */
  clearExpiredCommentsBatch(teamId: string, cutoff: Date, limit: number): Promise<number> {
    return this.feedback.clearExpiredCommentsBatch(teamId, cutoff, limit);
  }

  /** Retention (R-RT-3): which of these recall events feedback refers to (those stay), as `team_id:id`. */
  findReferencedRecallEvents(teamId: string, ids: readonly string[]): Promise<Set<string>> {
    return this.feedback.findReferencedRecallEvents(teamId, ids);
  }

  /** A user's deletion (R-RT-4): the feedback the user gave and the feedback on the user's recalls. */
  deleteAllOfUser(teamId: string, userId: string): Promise<number> {
    return this.feedback.deleteAllOfUser(teamId, userId);
  }
}

/**
 * Whether the recorded event under the item's key is this item (R-FB-5). An event without a digest
 * (recorded before digests, or its comments cleared by retention) cannot be compared and is taken
 * as the item: a blind replay stays harmless.
 */
function sameItem(recorded: ClientKeyedEvent, digest: string | null): boolean {
  return recorded.itemDigest === null || digest === null || recorded.itemDigest === digest;
}

/** The stored event: the judgment, and the recall's own account of itself copied from its event. */
function feedbackEventOf(actor: ActorContext, item: FeedbackItem, recall: RecallEventRecord, itemDigest: string | null): NewFeedbackEvent {
  return {
    id: newFeedbackEventId(),
    recallEventId: recall.id,
    teamId: actor.teamId,
    actorId: actor.userId,
    ...recallAccountOf(recall),
    returnedRefs: recall.results,
    ...judgmentOf(item, recall.results),
    clientFeedbackId: item.clientFeedbackId ?? null,
    itemDigest,
  };
}
