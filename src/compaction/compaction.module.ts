import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { ToolResultsModule } from '../tool-results';
import {
  CompactionPoliciesRepository,
  CompactionPoliciesResolver,
  CompactionPoliciesService,
  TeamCompactionPolicy,
} from './compaction-policies';
import { CompactionResolver } from './compaction.resolver';
import { CompactionService } from './compaction.service';

export const COMPACTION_RESOLVERS = [CompactionResolver, CompactionPoliciesResolver];

export const COMPACTION_ENTITIES = [TeamCompactionPolicy];

/**
 * Compaction (R-LG-3, R-LG-4): a message list in any of the five history formats made to fit its
 * token budget by replacing stale tool results and inputs with their stubs, under the team's
 * compaction policies. It records the results it replaces through ToolResults; the one table it
 * owns holds the teams' compaction policies.
 */
@Module({
  imports: [ToolResultsModule, MikroOrmModule.forFeature(COMPACTION_ENTITIES)],
  providers: [CompactionService, CompactionPoliciesRepository, CompactionPoliciesService, ...COMPACTION_RESOLVERS],
  exports: [CompactionService],
})
export class CompactionModule {}
