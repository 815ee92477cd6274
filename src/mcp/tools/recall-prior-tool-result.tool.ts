import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UuidPipe } from '../../common/graphql/uuid.pipe';
import { countTokens } from '../../common/text/tokenizer';
import { AppConfig } from '../../config/app-config';
import { LookupService, MIN_ANSWER_TOKENS } from '../../lookup';
import { PriorResultsService } from '../../recall';
import type { ActorContext } from '../../tenancy';
import { priorAnswer, priorBlock, priorHeading, structuredResult } from '../mcp-answers';
import { MCP_TOOL_NAMES, priorToolResultShape } from '../mcp-tool-inputs';
import { type PriorResult, priorResultOf, type PriorToolResultOutput, priorToolResultOutputShape } from '../mcp-tool-outputs';
import type { McpTool, ToolRunner } from './mcp-tool';

/** `recall_prior_tool_result`: a tool's latest results (R-RC-7), a single one with its payload, within the answer bound. */
@Injectable()
export class RecallPriorToolResultTool implements McpTool {
  constructor(
    private readonly priorResults: PriorResultsService,
    private readonly lookup: LookupService,
    private readonly config: AppConfig,
  ) {}

  register(server: McpServer, actor: ActorContext, run: ToolRunner): void {
    server.registerTool(
      MCP_TOOL_NAMES.RECALL_PRIOR_TOOL_RESULT,
      {
        title: 'Prior results of a tool',
        description:
          'The most recent stored results of a tool (by tool_name, since_days, conversation_id), newest first, each with its date and mem id. ' +
          'A single result comes with its payload; several come as stubs to re-expand with recall_tool_result. Needs memory:read.',
        inputSchema: priorToolResultShape,
        outputSchema: priorToolResultOutputShape,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        run(MCP_TOOL_NAMES.RECALL_PRIOR_TOOL_RESULT, async () => {
          const output = await this.priorToolResults(actor, args);
          return structuredResult(output, priorAnswer(output));
        }),
    );
  }

  /** The prior results' query; its snapshots as dated blocks, within the answer bound. */
  private async priorToolResults(
    actor: ActorContext,
    args: { tool_name?: string; since_days?: number; conversation_id?: string; limit?: number },
  ): Promise<PriorToolResultOutput> {
    const page = await this.priorResults.find(actor, {
      conversationId: new UuidPipe('conversation_id', true).transform(args.conversation_id) ?? null,
      toolName: args.tool_name ?? null,
      sinceDays: args.since_days ?? null,
      limit: args.limit ?? 1,
    });
    // The lookup answer bound, the same as every lookup answer's (R-LG-2); room for the answer's own first and last lines.
    let room = this.config.lookup.answerMaxTokens - 120;

    if (page.records.length === 1) {
      const [record] = page.records;
      const heading = priorHeading(priorResultOf(record), 0);
      const maxTokens = Math.max(MIN_ANSWER_TOKENS, room - countTokens(heading) - 10);
      const payload = await this.lookup.lookUp(actor, { memId: record.memId, format: 'FULL', maxTokens });
      return { results: [priorResultOf(record, payload)], omitted: 0, has_more: page.hasNextPage };
    }
    const results: PriorResult[] = [];
    for (const [index, record] of page.records.entries()) {
      const result = priorResultOf(record);
      const tokens = countTokens(priorBlock(result, index)) + 2;
      if (tokens > room) break;
      room -= tokens;
      results.push(result);
    }
    return { results, omitted: page.records.length - results.length, has_more: page.hasNextPage };
  }
}
