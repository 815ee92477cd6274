import { Injectable } from '@nestjs/common';
import { checkPageSize, decodeCursor } from '../common/pagination/keyset-cursor';
import type { ActorContext } from '../tenancy';
import type { FeedbackEventRecord } from './feedback-event.record';
import {
  type FeedbackEventFilter,
  FeedbackEventRepository,
  type FeedbackMetricsGroupBy,
  type FeedbackMetricsRow,
} from './feedback-event.repository';

const FEEDBACK_EVENT_ID = /^fb_[0-9A-HJKMNP-TV-Z]{26}$/;

export interface FeedbackEventPage {
  records: FeedbackEventRecord[];
  hasNextPage: boolean;
}

/**
 * Admin inspection of the team's feedback (R-FB-8, R-FB-9). Only events whose space is ACTIVE at
 * the generation they were recorded at are listed, returned or counted.
 */
@Injectable()
export class FeedbackInspectionService {
  constructor(private readonly feedback: FeedbackEventRepository) {}

  async list(actor: ActorContext, filter: FeedbackEventFilter, first: number, after?: string | null): Promise<FeedbackEventPage> {
    const limit = checkPageSize(first);
    const position = after ? decodeCursor(after, 'after', FEEDBACK_EVENT_ID) : null;
    const records = await this.feedback.list(actor.teamId, filter, position, limit + 1);
    return { records: records.slice(0, limit), hasNextPage: records.length > limit };
  }

  find(actor: ActorContext, id: string): Promise<FeedbackEventRecord | null> {
    return this.feedback.findVisible(actor.teamId, id);
  }

  metrics(actor: ActorContext, filter: FeedbackEventFilter, groupBy: FeedbackMetricsGroupBy): Promise<FeedbackMetricsRow[]> {
    return this.feedback.metrics(actor.teamId, filter, groupBy);
  }
}
