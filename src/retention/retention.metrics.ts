import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';

const TOOL_RESULTS = 'tool_results_retention_deletes_total';
const RECALL_EVENTS = 'recall_events_retention_deletes_total';
const FEEDBACK_EVENTS = 'feedback_events_retention_deletes_total';
const FEEDBACK_COMMENTS = 'feedback_comments_retention_cleared_total';
const CONVERSATIONS = 'conversations_retention_deletes_total';
const MESSAGES = 'messages_retention_deletes_total';

export const RETENTION_METRIC_PROVIDERS = [
  makeCounterProvider({ name: TOOL_RESULTS, help: 'Tool-result snapshots deleted by retention sweeps (R-RT-5).' }),
  makeCounterProvider({ name: RECALL_EVENTS, help: 'Recall events deleted by retention sweeps.' }),
  makeCounterProvider({ name: FEEDBACK_EVENTS, help: 'Feedback events deleted by retention sweeps.' }),
  makeCounterProvider({ name: FEEDBACK_COMMENTS, help: 'Feedback events whose comment texts retention sweeps cleared.' }),
  makeCounterProvider({ name: CONVERSATIONS, help: 'Idle conversations without snapshots deleted by retention sweeps.' }),
  makeCounterProvider({ name: MESSAGES, help: 'Messages of those conversations deleted with them.' }),
];

/** The tables a sweep reports, in the order it sweeps them. */
export const SWEPT_TABLES = [
  'feedback_events',
  'feedback_comments',
  'recall_events',
  'message_tool_results',
  'conversations',
  'messages',
] as const;
export type SweptTable = (typeof SWEPT_TABLES)[number];

@Injectable()
export class RetentionMetrics {
  private readonly counters: Record<SweptTable, Counter>;

  constructor(
    @InjectMetric(TOOL_RESULTS) toolResults: Counter,
    @InjectMetric(RECALL_EVENTS) recallEvents: Counter,
    @InjectMetric(FEEDBACK_EVENTS) feedbackEvents: Counter,
    @InjectMetric(FEEDBACK_COMMENTS) feedbackComments: Counter,
    @InjectMetric(CONVERSATIONS) conversations: Counter,
    @InjectMetric(MESSAGES) messages: Counter,
  ) {
    this.counters = {
      message_tool_results: toolResults,
      recall_events: recallEvents,
      feedback_events: feedbackEvents,
      feedback_comments: feedbackComments,
      conversations,
      messages,
    };
  }

  swept(table: SweptTable, rows: number): void {
    if (rows > 0) this.counters[table].inc(rows);
  }
}
