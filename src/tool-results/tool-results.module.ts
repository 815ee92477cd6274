import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ConversationRepository } from './conversation.repository';
import { TOOL_RESULT_ENTITIES } from './entities';
import { TeamSummaryRulesRepository } from './team-summary-rules/team-summary-rules.repository';
import { TeamSummaryRulesResolver } from './team-summary-rules/team-summary-rules.resolver';
import { TeamSummaryRulesService } from './team-summary-rules/team-summary-rules.service';
import { ToolResultRepository } from './tool-result.repository';
import { TOOL_RESULT_METRIC_PROVIDERS, ToolResultMetrics } from './tool-results.metrics';
import { ToolResultsResolver } from './tool-results.resolver';
import { ToolResultsService } from './tool-results.service';

export const TOOL_RESULTS_RESOLVERS = [ToolResultsResolver, TeamSummaryRulesResolver];

/** Exports one way to reach snapshots: the service, whose every read is scoped to the actor. */
@Module({
  imports: [MikroOrmModule.forFeature(TOOL_RESULT_ENTITIES)],
  providers: [
    ToolResultRepository,
    ConversationRepository,
    TeamSummaryRulesRepository,
    TeamSummaryRulesService,
    ToolResultsService,
    ToolResultMetrics,
    ...TOOL_RESULT_METRIC_PROVIDERS,
    ...TOOL_RESULTS_RESOLVERS,
  ],
  exports: [ToolResultsService],
})
export class ToolResultsModule {}
