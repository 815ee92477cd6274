import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import type { RecallEventSource } from './recall-event.checks';

const RECALL_EVENTS = 'recall_events_total';

/** Label values: closed sets only. */
type RecallEventOutcomeLabel = 'stored' | 'degraded';

export const RECALL_EVENT_METRIC_PROVIDERS = [
  makeCounterProvider({
    name: RECALL_EVENTS,
    help: 'Recall events by source (INTERNAL, EXTERNAL) and outcome (stored, degraded) (R-RC-9).',
    labelNames: ['source', 'outcome'],
  }),
];

@Injectable()
export class RecallEventMetrics {
  constructor(@InjectMetric(RECALL_EVENTS) private readonly recallEvents: Counter<'source' | 'outcome'>) {}

  recallEventRecorded(source: RecallEventSource, outcome: RecallEventOutcomeLabel): void {
    this.recallEvents.inc({ source, outcome });
  }
}
