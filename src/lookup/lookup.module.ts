import { Module } from '@nestjs/common';
import { ToolResultsModule } from '../tool-results';
import { DatabasePathTurns } from './json-path/database-path-turns';
import { JSON_PATH_METRIC_PROVIDERS, JsonPathMetrics } from './json-path/json-path.metrics';
import { LookupPool } from './lookup-pool';
import { LookupResolver } from './lookup.resolver';
import { LookupService } from './lookup.service';

export const LOOKUP_RESOLVERS = [LookupResolver];

/**
 * Lookup (R-LG-2): one snapshot read back by mem id — whole or sliced by substring, range, lines,
 * pattern or JSONPath — in bounded windows. It reads snapshots through ToolResults only and owns
 * no table; the work that grows with a payload runs on the lookup pool's threads.
 */
@Module({
  imports: [ToolResultsModule],
  providers: [LookupService, LookupPool, DatabasePathTurns, JsonPathMetrics, ...JSON_PATH_METRIC_PROVIDERS, ...LOOKUP_RESOLVERS],
  exports: [LookupService],
})
export class LookupModule {}
