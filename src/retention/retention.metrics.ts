import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';

const TOOL_RESULTS = 'tool_results_retention_deletes_total';
const RECALL_EVENTS = 'recall_events_retention_deletes_total';
const FEEDBACK_EVENTS = 'feedback_events_retention_deletes_total';
const FEEDBACK_COMMENTS = 'feedback_comments_retention_cleared_total';

export const RETENTION_METRIC_PROVIDERS = [
  makeCounterProvider({ name: TOOL_RESULTS, help: 'Tool-result snapshots deleted by retention sweeps (R-RT-5).' }),
  makeCounterProvider({ name: RECALL_EVENTS, help: 'Recall events deleted by retention sweeps.' }),
  makeCounterProvider({ name: FEEDBACK_EVENTS, help: 'Feedback events deleted by retention sweeps.' }),
  makeCounterProvider({ name: FEEDBACK_COMMENTS, help: 'Feedback events whose comment texts retention sweeps cleared.' }),
];

export type SweptTable = 'message_tool_results' | 'recall_events' | 'feedback_events' | 'feedback_comments';

@Injectable()
export class RetentionMetrics {
  private readonly counters: Record<SweptTable, Counter>;

  constructor(
    @InjectMetric(TOOL_RESULTS) toolResults: Counter,
    @InjectMetric(RECALL_EVENTS) recallEvents: Counter,
    @InjectMetric(FEEDBACK_EVENTS) feedbackEvents: Counter,
    @InjectMetric(FEEDBACK_COMMENTS) feedbackComments: Counter,
  ) {
    this.counters = {
      message_tool_results: toolResults,
      recall_events: recallEvents,
      feedback_events: feedbackEvents,
      feedback_comments: feedbackComments,
    };
  }

  swept(table: SweptTable, rows: number): void {
    if (rows > 0) this.counters[table].inc(rows);
  }
}
