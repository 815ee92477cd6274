import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ConversationRepository } from './conversation.repository';
import { TOOL_RESULT_ENTITIES } from './entities';
import { HandleFieldsPool } from './handle/handle-fields-pool';
import { TeamSummaryRulesRepository } from './team-summary-rules/team-summary-rules.repository';
import { TeamSummaryRulesResolver } from './team-summary-rules/team-summary-rules.resolver';
import { TeamSummaryRulesService } from './team-summary-rules/team-summary-rules.service';
import { ToolResultDeletionRepository } from './tool-result-deletion.repository';
import { ToolResultJsonPathRepository } from './tool-result-json-path.repository';
import { ToolResultWriteRepository } from './tool-result-write.repository';
import { ToolResultRepository } from './tool-result.repository';
import { TOOL_RESULT_METRIC_PROVIDERS, ToolResultMetrics } from './tool-results.metrics';
import { ToolResultsResolver } from './tool-results.resolver';
import { ToolResultDeletions } from './tool-result-deletions.service';
import { ToolResultPathLookups } from './tool-result-path-lookups.service';
import { ToolResultReader } from './tool-result-reader.service';
import { ToolResultWriter } from './tool-result-writer.service';

export const TOOL_RESULTS_RESOLVERS = [ToolResultsResolver, TeamSummaryRulesResolver];

/** Exports the ways to reach snapshots, by role: write, read (every read scoped to the actor), path lookups, deletions. */
@Module({
  imports: [MikroOrmModule.forFeature(TOOL_RESULT_ENTITIES)],
  providers: [
    ToolResultRepository,
    ToolResultWriteRepository,
    ToolResultJsonPathRepository,
    ToolResultDeletionRepository,
    ConversationRepository,
    TeamSummaryRulesRepository,
    TeamSummaryRulesService,
    ToolResultWriter,
    ToolResultReader,
    ToolResultPathLookups,
    ToolResultDeletions,
    ToolResultMetrics,
    HandleFieldsPool,
    ...TOOL_RESULT_METRIC_PROVIDERS,
    ...TOOL_RESULTS_RESOLVERS,
  ],
  exports: [ToolResultWriter, ToolResultReader, ToolResultPathLookups, ToolResultDeletions],
})
export class ToolResultsModule {}
