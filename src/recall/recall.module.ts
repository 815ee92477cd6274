import { Module } from '@nestjs/common';
import { ToolResultsModule } from '../tool-results/tool-results.module';
import { RecallBlockService } from './recall-block.service';
import { RECALL_METRIC_PROVIDERS, RecallMetrics } from './recall.metrics';
import { RecallResolver } from './recall.resolver';

export const RECALL_RESOLVERS = [RecallResolver];

@Module({
  imports: [ToolResultsModule],
  providers: [RecallBlockService, RecallMetrics, ...RECALL_METRIC_PROVIDERS, ...RECALL_RESOLVERS],
})
export class RecallModule {}
