import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../common/errors/app-error';
import { UuidPipe } from '../common/graphql/uuid.pipe';
import { countTokens } from '../common/text/tokenizer';
import { AppConfig } from '../config/app-config';
import { FeedbackService } from '../feedback';
import { currentRequestId } from '../observability/request-context';
import { LedgerService, MIN_ANSWER_TOKENS } from '../ledger';
import { checkPriorQuery, RecallBlockService, RecallSearchService } from '../recall';
import { type ActorContext, FeatureFlagKey, FeatureFlagService, Scope } from '../tenancy';
import { DEFAULT_ANSWER_MAX_TOKENS, ToolResultsService } from '../tool-results';
import {
  errorResult,
  feedbackAnswer,
  missingScopeResult,
  previouslyFetchedAnswer,
  priorAnswer,
  priorHeading,
  recallMemoryAnswer,
  textResult,
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

const MCP_SERVER_NAME = 'recall-ledger';
const MCP_SERVER_VERSION = '0.1.0';

/**
 * The model-facing tools over MCP (R-MCP-1): one server per request, built for its actor. Each
 * tool calls the service its GraphQL twin calls, after the same scope check; every outcome,
 * failures included, is a tool result the model can read.
 */
@Injectable()
export class McpToolsService {
  private readonly logger = new Logger(McpToolsService.name);

  constructor(
    private readonly ledger: LedgerService,
    private readonly toolResults: ToolResultsService,
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
        description:
          'Read back a stored tool result by its mem id (from a stub or a listing): the stub (summary), the payload windowed (full, offset/max_chars), ' +
          'a line range (line_start/line_count), only the parts matching a query, or what a json_path selects. Needs memory:read.',
        inputSchema: recallToolResultShape,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) =>
        this.run(actor, Scope.MEMORY_READ, async () =>
          textResult(
            await this.ledger.recall(actor, {
              memId: args.mem_id,
              format: args.format === 'full' ? 'FULL' : 'SUMMARY',
              query: args.query ?? null,
              offset: args.offset ?? null,
              maxChars: args.max_chars ?? null,
              jsonPath: args.json_path ?? null,
              lineStart: args.line_start ?? null,
              lineCount: args.line_count ?? null,
              maxTokens: args.max_tokens ?? null,
            }),
          ),
        ),
    );

    server.registerTool(
      MCP_TOOL_NAMES.RECALL_PRIOR_TOOL_RESULT,
      {
        description:
          'The most recent stored results of a tool (by tool_name, since_days, conversation_id), newest first, each with its date and mem id. ' +
          'A single result comes with its payload; several come as stubs to re-expand with recall_tool_result. Needs memory:read.',
        inputSchema: priorToolResultShape,
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args) => this.run(actor, Scope.MEMORY_READ, async () => textResult(await this.priorToolResults(actor, args))),
    );

    server.registerTool(
      MCP_TOOL_NAMES.RECALL_MEMORY,
      {
        description:
          'Full-text search over your stored tool results in one space. Answers ranked hits (date, tool call, summary, mem id) and a recall_event_id ' +
          'to judge with submit_recall_session_feedback when it is offered. Needs memory:read.',
        inputSchema: recallMemoryShape,
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args) =>
        this.run(actor, Scope.MEMORY_READ, async () => {
          const outcome = await this.search.search(actor, {
            spaceId: new UuidPipe('space_id').transform(args.space_id),
            query: args.query,
            conversationId: new UuidPipe('conversation_id', true).transform(args.conversation_id) ?? null,
            toolName: args.tool_name ?? null,
            sinceDays: args.since_days ?? null,
            limit: args.limit ?? 5,
          });
          return textResult(recallMemoryAnswer(args.query, outcome));
        }),
    );

    server.registerTool(
      MCP_TOOL_NAMES.PREVIOUSLY_FETCHED,
      {
        description:
          'The "Previously fetched" block of a conversation: its most recent tool results as dated one-line snapshots, with their mem ids and a recall_event_id. Needs memory:read.',
        inputSchema: previouslyFetchedShape,
        annotations: { readOnlyHint: false, openWorldHint: false },
      },
      (args) =>
        this.run(actor, Scope.MEMORY_READ, async () => {
          const conversationId = new UuidPipe('conversation_id').transform(args.conversation_id);
          return textResult(previouslyFetchedAnswer(await this.blocks.build(actor, conversationId, args.user_message ?? null)));
        }),
    );

    // Absent, not refused, while the team does not collect feedback: tools/list omits it and
    // tools/call answers the SDK's tool-not-found.
    if (await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED)) {
      server.registerTool(
        MCP_TOOL_NAMES.SUBMIT_FEEDBACK,
        {
          description:
            'After answering the user, judge the recalls you used (recall_event_id from recall_memory or previously_fetched). Items are recorded in order; ' +
            'on an error, the items before failed_index are recorded: follow next_action and remediation, do not resend them. Needs feedback:write.',
          inputSchema: feedbackShape,
          annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
        },
        (args) =>
          this.run(actor, Scope.FEEDBACK_WRITE, async () => {
            const outcome = await this.feedback.submit(actor, feedbackItemsOf(args));
            return textResult(feedbackAnswer(outcome), outcome.error !== null);
          }),
      );
    }
    return server;
  }

  /** priorToolResults' query; its snapshots as dated blocks, within the answer bound. */
  private async priorToolResults(
    actor: ActorContext,
    args: { tool_name?: string; since_days?: number; conversation_id?: string; limit?: number },
  ): Promise<string> {
    const limit = args.limit ?? 1;
    const since = checkPriorQuery(limit, args.since_days ?? null, new Date());
    const conversationId = new UuidPipe('conversation_id', true).transform(args.conversation_id) ?? null;
    const page = await this.toolResults.history(actor, { conversationId, toolName: args.tool_name ?? null, since }, limit, null);
    // The recall answer bound, the same as every recall answer's (R-LG-2).
    const budget = this.config.recall.answerMaxTokens ?? DEFAULT_ANSWER_MAX_TOKENS;
    // Room for the answer's own first and last lines.
    let room = budget - 120;

    if (page.records.length === 1) {
      const [record] = page.records;
      const heading = priorHeading(record, 0);
      const maxTokens = Math.max(MIN_ANSWER_TOKENS, room - countTokens(heading) - 10);
      const payload = await this.ledger.recall(actor, {
        memId: record.memId,
        format: 'FULL',
        query: null,
        offset: null,
        maxChars: null,
        jsonPath: null,
        maxTokens,
      });
      return priorAnswer({ blocks: [`${heading}\n${payload}`], omitted: 0, hasMore: page.hasNextPage });
    }
    const blocks: string[] = [];
    for (const [index, record] of page.records.entries()) {
      const block = `${priorHeading(record, index)}\n${record.handle.stub}`;
      const tokens = countTokens(block) + 2;
      if (tokens > room) break;
      room -= tokens;
      blocks.push(block);
    }
    return priorAnswer({ blocks, omitted: page.records.length - blocks.length, hasMore: page.hasNextPage });
  }

  /** The scope check of the GraphQL twin, then the work; every failure becomes a tool error. */
  private async run(actor: ActorContext, scope: Scope, work: () => Promise<CallToolResult>): Promise<CallToolResult> {
    if (!actor.hasScope(scope)) return missingScopeResult(scope);
    try {
      return await work();
    } catch (error) {
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
