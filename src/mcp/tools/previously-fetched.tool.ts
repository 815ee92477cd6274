import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UuidPipe } from '../../common/graphql/uuid.pipe';
import { RecallBlockService } from '../../recall';
import type { ActorContext } from '../../tenancy';
import { previouslyFetchedAnswer, structuredResult } from '../mcp-answers';
import { MCP_TOOL_NAMES, previouslyFetchedShape } from '../mcp-tool-inputs';
import { previouslyFetchedOutput, previouslyFetchedOutputShape } from '../mcp-tool-outputs';
import type { McpTool, ToolRunner } from './mcp-tool';

/** `previously_fetched`: a conversation's "Previously fetched" block (R-RC-1..6), the twin of GraphQL's recallBlock. */
@Injectable()
export class PreviouslyFetchedTool implements McpTool {
  constructor(private readonly blocks: RecallBlockService) {}

  register(server: McpServer, actor: ActorContext, run: ToolRunner): void {
    server.registerTool(
      MCP_TOOL_NAMES.PREVIOUSLY_FETCHED,
      {
        title: 'Previously fetched in a conversation',
        description:
          'The "Previously fetched" block of a conversation: its most recent tool results as dated one-line snapshots, with their mem ids and a recall_event_id. Needs memory:read.',
        inputSchema: previouslyFetchedShape,
        outputSchema: previouslyFetchedOutputShape,
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args) =>
        run(MCP_TOOL_NAMES.PREVIOUSLY_FETCHED, async () => {
          const conversationId = new UuidPipe('conversation_id').transform(args.conversation_id);
          const output = previouslyFetchedOutput(await this.blocks.build(actor, conversationId, args.user_message ?? null));
          return structuredResult(output, previouslyFetchedAnswer(output));
        }),
    );
  }
}
