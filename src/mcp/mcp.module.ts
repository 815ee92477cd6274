import { Module } from '@nestjs/common';
import { FeedbackModule } from '../feedback';
import { LookupModule } from '../lookup';
import { RecallModule } from '../recall';
import { TenancyModule } from '../tenancy';
import { ToolResultsModule } from '../tool-results';
import { MCP_TOOLS, McpToolsService } from './mcp-tools.service';
import { McpController } from './mcp.controller';

/** Model-facing tools over MCP (R-MCP-1): a thin surface over the services the GraphQL resolvers use. */
@Module({
  imports: [TenancyModule, ToolResultsModule, LookupModule, RecallModule, FeedbackModule],
  controllers: [McpController],
  providers: [McpToolsService, ...MCP_TOOLS],
})
export class McpModule {}
