import { Module } from '@nestjs/common';
import { ToolResultRepository } from './tool-result.repository';
import { TOOL_RESULT_METRIC_PROVIDERS, ToolResultMetrics } from './tool-results.metrics';
import { ToolResultsResolver } from './tool-results.resolver';
import { ToolResultsService } from './tool-results.service';

export const TOOL_RESULTS_RESOLVERS = [ToolResultsResolver];

/** Exports one way to reach snapshots: the service, whose every read is scoped to the actor. */
@Module({
  providers: [ToolResultRepository, ToolResultsService, ToolResultMetrics, ...TOOL_RESULT_METRIC_PROVIDERS, ...TOOL_RESULTS_RESOLVERS],
  exports: [ToolResultsService],
})
export class ToolResultsModule {}
