import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LookupService } from '../../lookup';
import type { ActorContext } from '../../tenancy';
import { structuredResult } from '../mcp-answers';
import { MCP_TOOL_NAMES, recallToolResultShape } from '../mcp-tool-inputs';
import { recallToolResultOutput, recallToolResultOutputShape } from '../mcp-tool-outputs';
import type { McpTool, ToolRunner } from './mcp-tool';

/** `recall_tool_result`: a lookup by mem id (R-LG-2), the twin of GraphQL's recallToolResult. */
@Injectable()
export class RecallToolResultTool implements McpTool {
  constructor(private readonly lookup: LookupService) {}

  register(server: McpServer, actor: ActorContext, run: ToolRunner): void {
    server.registerTool(
      MCP_TOOL_NAMES.RECALL_TOOL_RESULT,
      {
        title: 'Read a stored tool result',
        description:
          'Read back a stored tool result by its mem id (from a stub or a listing): the stub (summary), the payload windowed (full, offset/max_chars), ' +
          'a line range (line_start/line_count), the lines matching a regular expression (pattern, context_lines), only the parts matching a query, ' +
          'or what a json_path selects. Needs memory:read.',
        inputSchema: recallToolResultShape,
        outputSchema: recallToolResultOutputShape,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        run(MCP_TOOL_NAMES.RECALL_TOOL_RESULT, async () => {
          // The tool's snake_case names in the lookup's spelling; one left out stays left out.
          const text = await this.lookup.lookUp(actor, {
            memId: args.mem_id,
            format: args.format === 'full' ? 'FULL' : 'SUMMARY',
            query: args.query,
            offset: args.offset,
            maxChars: args.max_chars,
            jsonPath: args.json_path,
            lineStart: args.line_start,
            lineCount: args.line_count,
            maxTokens: args.max_tokens,
            pattern: args.pattern,
            contextLines: args.context_lines,
          });
          const output = recallToolResultOutput(args.mem_id, text);
          return structuredResult(output, output.text);
        }),
    );
  }
}
