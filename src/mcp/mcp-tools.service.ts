import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../common/errors/app-error';
import { databaseUnavailable } from '../database/database-unavailable';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { countTokens } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import { FeedbackService } from '../feedback';
import { currentRequestId } from '../observability/request-context';
import { inSpan, SPAN_ATTRIBUTES } from '../observability/tracing';
import { LookupService, MIN_ANSWER_TOKENS } from '../lookup';
import { checkPriorQuery, RecallBlockService, RecallSearchService } from '../recall';
import { type ActorContext, FeatureFlagKey, FeatureFlagService } from '../tenancy';
import { ToolResultReader } from '../tool-results';
import {
  errorResult,
  feedbackAnswer,
  previouslyFetchedAnswer,
  priorAnswer,
  priorBlock,
  priorHeading,
  recallMemoryAnswer,
  structuredResult,
} from './mcp-answers';
import {
  feedbackItemsOf,
  feedbackShape,
  MCP_TOOL_NAMES,
  previouslyFetchedShape,
  priorToolResultShape,
  recallMemoryShape,
  recallToolResultShape,
} from './mcp-tool-inputs';
import {
  feedbackOutput,
  feedbackOutputShape,
  previouslyFetchedOutput,
  previouslyFetchedOutputShape,
  type PriorResult,
  priorResultOf,
  type PriorToolResultOutput,
  priorToolResultOutputShape,
  recallMemoryOutput,
  recallMemoryOutputShape,
  recallToolResultOutput,
  recallToolResultOutputShape,
} from './mcp-tool-outputs';

const MCP_SERVER_NAME = 'recall-ledger';
const MCP_SERVER_VERSION = '0.1.0';

/**
 * The model-facing tools over MCP (R-MCP-1): one server per request, built for its actor. Each
 * tool calls the service its GraphQL twin calls (McpController has checked the twin's scope); every outcome,
 * failures included, is a tool result the model can read. A success carries `structuredContent`
 * matching the tool's outputSchema beside its text, which is rendered from it.
 */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger(McpToolsService.name);

  constructor(
    private readonly lookup: LookupService,
    private readonly snapshots: ToolResultReader,
    private readonly search: RecallSearchService,
    private readonly blocks: RecallBlockService,
    private readonly feedback: FeedbackService,
    private readonly flags: FeatureFlagService,
    private readonly config: AppConfig,
  ) {}

  /** A server with the tools this actor's team has: the feedback tool only while feedback is enabled. */
  async serverFor(actor: ActorContext): Promise<McpServer> {
    const server = new McpServer({ name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION }, { capabilities: { tools: {} } });

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
        this.run(MCP_TOOL_NAMES.RECALL_TOOL_RESULT, actor, async () => {
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
        this.run(MCP_TOOL_NAMES.RECALL_PRIOR_TOOL_RESULT, actor, async () => {
          const output = await this.priorToolResults(actor, args);
          return structuredResult(output, priorAnswer(output));
        }),
    );

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
        this.run(MCP_TOOL_NAMES.RECALL_MEMORY, actor, async () => {
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
        this.run(MCP_TOOL_NAMES.PREVIOUSLY_FETCHED, actor, async () => {
          const conversationId = new UuidPipe('conversation_id').transform(args.conversation_id);
          const output = previouslyFetchedOutput(await this.blocks.build(actor, conversationId, args.user_message ?? null));
          return structuredResult(output, previouslyFetchedAnswer(output));
        }),
    );

    // Absent, not refused, while the team does not collect feedback: tools/list omits it and
    // tools/call answers the SDK's tool-not-found.
    if (await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)) {
      server.registerTool(
        MCP_TOOL_NAMES.SUBMIT_FEEDBACK,
        {
          title: 'Submit recall feedback',
          description:
            'After answering the user, judge the recalls you used (recall_event_id from recall_memory or previously_fetched). Items are recorded in order; ' +
            'on an error, the items before failed_index are recorded: follow next_action and remediation, do not resend them. Needs feedback:write.',
          inputSchema: feedbackShape,
          outputSchema: feedbackOutputShape,
          annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
        },
        (args) =>
          this.run(MCP_TOOL_NAMES.SUBMIT_FEEDBACK, actor, async () => {
            const output = feedbackOutput(await this.feedback.submit(actor, feedbackItemsOf(args)));
            // A batch error is a tool error that still carries what was recorded: the SDK's server
            // skips the outputSchema check when isError is set, its client does not (tested).
            return structuredResult(output, feedbackAnswer(output), output.error !== null);
          }),
      );
    }
    return server;
  }

  /** priorToolResults' query; its snapshots as dated blocks, within the answer bound. */
  private async priorToolResults(
    actor: ActorContext,
    args: { tool_name?: string; since_days?: number; conversation_id?: string; limit?: number },
  ): Promise<PriorToolResultOutput> {
    const limit = args.limit ?? 1;
    const since = checkPriorQuery(limit, args.since_days ?? null, new Date());
    const conversationId = new UuidPipe('conversation_id', true).transform(args.conversation_id) ?? null;
    const page = await this.snapshots.history(actor, { conversationId, toolName: args.tool_name ?? null, since }, limit, null);
    // The recall answer bound, the same as every recall answer's (R-LG-2).
    const budget = this.config.lookup.answerMaxTokens;
    // Room for the answer's own first and last lines.
    let room = budget - 120;

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
