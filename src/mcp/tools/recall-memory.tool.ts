import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UuidPipe } from '../../common/graphql/uuid.pipe';
import { RecallSearchService } from '../../recall';
import type { ActorContext } from '../../tenancy';
import { recallMemoryAnswer, structuredResult } from '../mcp-answers';
import { MCP_TOOL_NAMES, recallMemoryShape } from '../mcp-tool-inputs';
import { recallMemoryOutput, recallMemoryOutputShape } from '../mcp-tool-outputs';
import type { McpTool, ToolRunner } from './mcp-tool';

/** `recall_memory`: the full-text search over the actor's snapshots (R-RC-8), recorded as a recall event. */
@Injectable()
export class RecallMemoryTool implements McpTool {
  constructor(private readonly search: RecallSearchService) {}

  register(server: McpServer, actor: ActorContext, run: ToolRunner): void {
    server.registerTool(
      MCP_TOOL_NAMES.RECALL_MEMORY,
      {
        title: 'Search stored tool results',
        description:
          'Full-text search over your stored tool results in one space. Answers ranked hits (date, tool call, summary, mem id) and a recall_event_id ' +
          'to judge with submit_recall_session_feedback when it is offered. Needs memory:read.',
        inputSchema: recallMemoryShape,
        outputSchema: recallMemoryOutputShape,
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args) =>
        run(MCP_TOOL_NAMES.RECALL_MEMORY, async () => {
          const outcome = await this.search.search(actor, {
            spaceId: new UuidPipe('space_id').transform(args.space_id),
            query: args.query,
            conversationId: new UuidPipe('conversation_id', true).transform(args.conversation_id) ?? null,
            toolName: args.tool_name ?? null,
            sinceDays: args.since_days ?? null,
            limit: args.limit ?? 5,
          });
          const output = recallMemoryOutput(outcome);
          return structuredResult(output, recallMemoryAnswer(args.query, output));
        }),
    );
  }
}
