// The Feedback module's public surface: what Retention, MCP, the app and its CLIs may use.
export { FEEDBACK_ENTITIES } from './entities';
export { FEEDBACK_CASE_SCHEMA, feedbackCaseLine } from './export/feedback-case';
export { FeedbackExportRepository } from './export/feedback-export.repository';
export { comparePairedRuns, formatFixed, type PairedComparison, type RunResult } from './export/paired-comparison';
export { FEEDBACK_RESOLVERS, FeedbackModule } from './feedback.module';
export { MAX_FEEDBACK_ITEMS, MAX_REFS_PER_ITEM } from './feedback.checks';
export { type FeedbackItem, FeedbackNextAction, FeedbackQuality } from './feedback-vocabulary';
export { FeedbackService, type SubmissionOutcome } from './feedback.service';
