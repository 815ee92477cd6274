import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ConversationRepository } from './conversation.repository';
import { TOOL_RESULT_ENTITIES } from './entities';
import { ToolSummaryRuleRepository } from './summary-rules/tool-summary-rule.repository';
import { ToolSummaryRulesResolver } from './summary-rules/tool-summary-rules.resolver';
import { ToolSummaryRulesService } from './summary-rules/tool-summary-rules.service';
import { ToolResultRepository } from './tool-result.repository';
import { TOOL_RESULT_METRIC_PROVIDERS, ToolResultMetrics } from './tool-results.metrics';
import { ToolResultsResolver } from './tool-results.resolver';
import { ToolResultsService } from './tool-results.service';

export const TOOL_RESULTS_RESOLVERS = [ToolResultsResolver, ToolSummaryRulesResolver];

/** Exports one way to reach snapshots: the service, whose every read is scoped to the actor. */
@Module({
  imports: [MikroOrmModule.forFeature(TOOL_RESULT_ENTITIES)],
  providers: [
    ToolResultRepository,
    ConversationRepository,
    ToolSummaryRuleRepository,
    ToolSummaryRulesService,
    ToolResultsService,
    ToolResultMetrics,
    ...TOOL_RESULT_METRIC_PROVIDERS,
    ...TOOL_RESULTS_RESOLVERS,
  ],
  exports: [ToolResultsService],
})
export class ToolResultsModule {}
