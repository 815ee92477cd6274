import { Injectable } from '@nestjs/common';
import { BadUserInputError } from '../common/errors/app-error';
import { checkPageSize, decodeCursor } from '../common/pagination/keyset-cursor';
import { withTenantScope } from '../database/tenant-scope';
import { isStorableText } from '../common/text/storable-text';
import type { ActorContext } from '../tenancy';
import type { FeedbackEventRecord } from './feedback-event.record';
import { type FeedbackEventFilter, FeedbackEventRepository } from './feedback-event.repository';
import { type FeedbackStatsRow, FeedbackStatsRepository } from './feedback-stats.repository';
import { type FeedbackStatsGroupBy, isTimeGrouping, seriesRange } from './feedback-stats-series';
import { boundedCount, INSPECTION_COUNT_CAP, type InspectionCount } from './inspection-count';
import {
  type InspectedRecallEvent,
  RecallEventInspectionRepository,
  type RecallEventInspectionFilter,
} from './recall-event-inspection.repository';

const FEEDBACK_EVENT_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;
const RECALL_EVENT_ID = /^rec_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface InspectionPage<T> {
  records: T[];
  hasNextPage: boolean;
  /** Null unless the caller asked for it. */
  count: InspectionCount | null;
}

/** A page request: its size, its cursor, and whether to count the matches too. */
export interface PageRequest {
  first: number;
  after?: string | null;
  withCount: boolean;
}

/**
 * Admin inspection of the team's feedback and recall events (R-FB-8, R-FB-9). Only events whose
 * space is ACTIVE at the generation they were recorded at are listed, returned or counted. Every
 * read is team-wide: row-level security is user-deep on these events (R-TN-8), so it runs with the
 * request's user unset.
 */
@Injectable()
export class FeedbackInspectionService {
  constructor(
    private readonly feedback: FeedbackEventRepository,
    private readonly feedbackStats: FeedbackStatsRepository,
    private readonly recallEvents: RecallEventInspectionRepository,
  ) {}

  async list(actor: ActorContext, filter: FeedbackEventFilter, page: PageRequest): Promise<InspectionPage<FeedbackEventRecord>> {
    const limit = checkPageSize(page.first);
    const position = page.after ? decodeCursor(page.after, 'after', FEEDBACK_EVENT_ID) : null;
    checkToolName(filter.toolName);
    const [records, count] = await teamWide(actor, () =>
      Promise.all([
        this.feedback.list(actor.teamId, filter, position, limit + 1),
        page.withCount ? this.feedback.countUpTo(actor.teamId, filter, INSPECTION_COUNT_CAP) : null,
      ]),
    );
    return { records: records.slice(0, limit), hasNextPage: records.length > limit, count: count === null ? null : boundedCount(count) };
  }

  find(actor: ActorContext, id: string): Promise<FeedbackEventRecord | null> {
    return teamWide(actor, () => this.feedback.findVisible(actor.teamId, id));
  }

  /** The visible feedback events judging a recall event, oldest first. */
  listForRecallEvent(actor: ActorContext, recallEventId: string): Promise<FeedbackEventRecord[]> {
    return teamWide(actor, () => this.feedback.listForRecallEvent(actor.teamId, recallEventId));
  }

  /** The rates of R-FB-9, grouped by a label, or as a series of UTC days or ISO weeks over [since, until). */
  stats(actor: ActorContext, filter: FeedbackEventFilter, groupBy: FeedbackStatsGroupBy): Promise<FeedbackStatsRow[]> {
    checkToolName(filter.toolName);
    if (!isTimeGrouping(groupBy)) return teamWide(actor, () => this.feedbackStats.grouped(actor.teamId, filter, groupBy));
    const range = seriesRange(groupBy, filter.since, filter.until, new Date());
    return teamWide(actor, () => this.feedbackStats.series(actor.teamId, filter, range));
  }

  async listRecallEvents(
    actor: ActorContext,
    filter: RecallEventInspectionFilter,
    page: PageRequest,
  ): Promise<InspectionPage<InspectedRecallEvent>> {
    const limit = checkPageSize(page.first);
    const position = page.after ? decodeCursor(page.after, 'after', RECALL_EVENT_ID) : null;
    checkToolName(filter.toolName);
    const [records, count] = await teamWide(actor, () =>
      Promise.all([
        this.recallEvents.list(actor.teamId, filter, position, limit + 1),
        page.withCount ? this.recallEvents.countUpTo(actor.teamId, filter, INSPECTION_COUNT_CAP) : null,
      ]),
    );
    return { records: records.slice(0, limit), hasNextPage: records.length > limit, count: count === null ? null : boundedCount(count) };
  }
}

/** Runs an admin's read over every user of its team (the resolvers require the scope admin). */
function teamWide<T>(actor: ActorContext, work: () => Promise<T>): Promise<T> {
  return withTenantScope({ teamId: actor.teamId }, work);
}

/** A tool name PostgreSQL can compare: a NUL or an unpaired surrogate would fail the statement instead. */
function checkToolName(toolName: string | null | undefined): void {
  if (toolName && !isStorableText(toolName))
    throw new BadUserInputError('filter.toolName', 'filter.toolName contains a NUL character or an unpaired surrogate; remove it.');
}
