import { Module } from '@nestjs/common';
import { FeedbackModule } from '../feedback/feedback.module';
import { RecallModule } from '../recall/recall.module';
import { TenancyModule } from '../tenancy/tenancy.module';
import { ToolResultsModule } from '../tool-results/tool-results.module';
import { McpToolsService } from './mcp-tools.service';
import { McpController } from './mcp.controller';

/** Model-facing tools over MCP (R-MCP-1): a thin surface over the services the GraphQL resolvers use. */
@Module({
  imports: [TenancyModule, ToolResultsModule, RecallModule, FeedbackModule],
  controllers: [McpController],
  providers: [McpToolsService],
})
export class McpModule {}
