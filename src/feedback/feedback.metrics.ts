import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import type { FeedbackItem } from './feedback-vocabulary';

const SUBMISSIONS = 'recall_feedback_submissions_total';
const ITEMS = 'recall_feedback_items_total';
const MISSING_CONTEXT = 'recall_feedback_missing_context_total';
const IRRELEVANT = 'recall_feedback_irrelevant_total';

/** Submission outcomes: every item recorded, some, none (the first failed), or the feature off. */
export type SubmissionOutcomeLabel = 'recorded' | 'partial' | 'rejected' | 'disabled';

// Labels from closed sets only (R-FB-9): never an id, a query, a comment or a ref.
export const FEEDBACK_METRIC_PROVIDERS = [
  makeCounterProvider({
    name: SUBMISSIONS,
    help: 'Feedback submissions by outcome (recorded, partial, rejected, disabled).',
    labelNames: ['outcome'],
  }),
  makeCounterProvider({
    name: ITEMS,
    help: 'Recorded feedback items by judgment: used, answer_supported (true, false, unknown), quality (LOW, MEDIUM, HIGH, none).',
    labelNames: ['used', 'answer_supported', 'quality'],
  }),
  makeCounterProvider({ name: MISSING_CONTEXT, help: 'Recorded feedback items reporting missing context.' }),
  makeCounterProvider({ name: IRRELEVANT, help: 'Recorded feedback items reporting irrelevant results.' }),
];

@Injectable()
export class FeedbackMetrics {
  constructor(
    @InjectMetric(SUBMISSIONS) private readonly submissions: Counter<'outcome'>,
    @InjectMetric(ITEMS) private readonly items: Counter<'used' | 'answer_supported' | 'quality'>,
    @InjectMetric(MISSING_CONTEXT) private readonly missingContext: Counter,
    @InjectMetric(IRRELEVANT) private readonly irrelevant: Counter,
  ) {}

  submission(outcome: SubmissionOutcomeLabel): void {
    this.submissions.inc({ outcome });
  }

  itemRecorded(item: FeedbackItem): void {
    const supported = item.answerSupported === true ? 'true' : item.answerSupported === false ? 'false' : 'unknown';
    this.items.inc({ used: String(item.used === true), answer_supported: supported, quality: item.quality ?? 'none' });
    if (item.missingContext === true) this.missingContext.inc();
    if (item.irrelevant === true) this.irrelevant.inc();
  }
}
