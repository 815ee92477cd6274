import { Injectable } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { BoundedLabel } from '../common/metrics/bounded-label';
import { AppConfig } from '../config/app-config';

const PERSISTED = 'tool_results_persisted_total';
const SUMMARY_RULE_FALLBACKS = 'tool_results_summary_rule_fallbacks_total';
/** Distinct tool names a replica reports before the rest count as `other` (R-TR-8). */
const TOOL_NAME_LABEL_LIMIT = 100;

/** Why a summary was left to the generic summarizer although a team's rule applied: its rules passed SUMMARY_RULE_ROW_BUDGET. */
export type SummaryRuleFallbackReason = 'over_budget';

export const TOOL_RESULT_METRIC_PROVIDERS = [
  makeCounterProvider({ name: PERSISTED, help: 'Tool-result snapshots persisted (new rows only).', labelNames: ['tool_name'] }),
  makeCounterProvider({
    name: SUMMARY_RULE_FALLBACKS,
    help: 'Summaries given by the generic summarizer because the summary rules could not be evaluated, by reason.',
    labelNames: ['reason'],
  }),
];

@Injectable()
export class ToolResultMetrics {
  private readonly toolNames: BoundedLabel;

  constructor(
    @InjectMetric(PERSISTED) private readonly persisted: Counter<'tool_name'>,
    @InjectMetric(SUMMARY_RULE_FALLBACKS) private readonly summaryRuleFallbacks: Counter<'reason'>,
    config: AppConfig,
  ) {
    // Per team as well: one tenant's many tool names must not leave the others only `other`.
    this.toolNames = new BoundedLabel(TOOL_NAME_LABEL_LIMIT, { perOwner: config.metrics.toolLabelsPerTeam });
  }

  snapshotPersisted(toolName: string, teamId: string): void {
    this.persisted.inc({ tool_name: this.toolNames.value(toolName, teamId) });
  }

  summaryRuleFallback(reason: SummaryRuleFallbackReason): void {
    this.summaryRuleFallbacks.inc({ reason });
  }
}
