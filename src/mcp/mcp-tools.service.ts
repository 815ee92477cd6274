import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../common/errors/app-error';
import { databaseUnavailable } from '../database/database-unavailable';
import { currentRequestId } from '../observability/request-context';
import { inSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import type { ActorContext } from '../tenancy';
import { errorResult } from './mcp-answers';
import type { McpTool } from './tools/mcp-tool';
import { PreviouslyFetchedTool } from './tools/previously-fetched.tool';
import { RecallMemoryTool } from './tools/recall-memory.tool';
import { RecallPriorToolResultTool } from './tools/recall-prior-tool-result.tool';
import { RecallToolResultTool } from './tools/recall-tool-result.tool';
import { SubmitFeedbackTool } from './tools/submit-feedback.tool';

const MCP_SERVER_NAME = 'recall-ledger';
const MCP_SERVER_VERSION = '0.1.0';

/** The tools, in the order tools/list names them (one file each under tools/). */
export const MCP_TOOLS = [RecallToolResultTool, RecallPriorToolResultTool, RecallMemoryTool, PreviouslyFetchedTool, SubmitFeedbackTool];

/**
 * The model-facing tools over MCP (R-MCP-1): one server per request, built for its actor. Each
 * tool calls the service its GraphQL twin calls (McpController has checked the twin's scope); every outcome,
 * failures included, is a tool result the model can read. A success carries `structuredContent`
 * matching the tool's outputSchema beside its text, which is rendered from it.
 */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger(McpToolsService.name);
  private readonly tools: readonly McpTool[];

  constructor(
    recallToolResult: RecallToolResultTool,
    recallPriorToolResult: RecallPriorToolResultTool,
    recallMemory: RecallMemoryTool,
    previouslyFetched: PreviouslyFetchedTool,
    submitFeedback: SubmitFeedbackTool,
  ) {
    this.tools = [recallToolResult, recallPriorToolResult, recallMemory, previouslyFetched, submitFeedback];
  }

  /** A server with the tools this actor's team has: the feedback tool only while feedback is enabled. */
  async serverFor(actor: ActorContext): Promise<McpServer> {
    const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });
    const run = (tool: string, work: () => Promise<CallToolResult>) => this.run(tool, actor, work);
    for (const tool of this.tools) await tool.register(server, actor, run);
    return server;
  }

  /**
   * The work, with every failure as a tool error. The scope was checked before the MCP message was
   * handled (McpController, MCP_TOOL_SCOPES): a call without it is an HTTP 403 insufficient_scope.
   */
  private run(tool: string, actor: ActorContext, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    // The tool call's span, named as OpenTelemetry's MCP conventions name it.
    const attributes = { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool, [SPAN_ATTRIBUTES.teamId]: actor.teamId };
    return inSpan(`tools/call ${tool}`, attributes, async (span) => {
      const result = await this.answer(work);
      if (result.isError === true) span.setAttribute('error.type', 'tool_error');
      return result;
    });
  }

  private async answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      return await work();
    } catch (error) {
      const unavailable = databaseUnavailable(error);
      if (unavailable !== null) {
        this.logger.warn({ msg: 'database did not answer in time', missed: unavailable.missed, requestId: currentRequestId() ?? null });
        return errorResult(unavailable.error, currentRequestId());
      }
      if (!(error instanceof AppError)) {
        // The code only: a driver's message may quote the statement's values.
        this.logger.error({
          msg: 'MCP tool failed',
          name: (error as Error)?.name ?? null,
          code: (error as { code?: unknown })?.code ?? null,
          requestId: currentRequestId() ?? null,
        });
      }
      return errorResult(error, currentRequestId());
    }
  }
}
