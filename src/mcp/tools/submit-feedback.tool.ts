import { Injectable } from '@nestjs/common';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { FeedbackService } from '../../feedback';
import { type ActorContext, FeatureFlagKey, FeatureFlagService } from '../../tenancy';
import { feedbackAnswer, structuredResult } from '../mcp-answers';
import { feedbackItemsOf, feedbackShape, MCP_TOOL_NAMES } from '../mcp-tool-inputs';
import { feedbackOutput, feedbackOutputShape } from '../mcp-tool-outputs';
import type { McpTool, ToolRunner } from './mcp-tool';

/** `submit_recall_session_feedback`: a feedback batch (R-FB-1..8), offered only while the team collects feedback. */
@Injectable()
export class SubmitFeedbackTool implements McpTool {
  constructor(
    private readonly feedback: FeedbackService,
    private readonly flags: FeatureFlagService,
  ) {}

  async register(server: McpServer, actor: ActorContext, run: ToolRunner): Promise<void> {
    // Absent, not refused, while the team does not collect feedback: tools/list omits it and
    // tools/call answers the SDK's tool-not-found.
    if (!(await this.flags.isEnabled(actor.teamId, FeatureFlagKey.RECALL_FEEDBACK_ENABLED))) return;
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
        run(MCP_TOOL_NAMES.SUBMIT_FEEDBACK, async () => {
          const output = feedbackOutput(await this.feedback.submit(actor, feedbackItemsOf(args)));
          // A batch error is a tool error that still carries what was recorded: the SDK's server
          // skips the outputSchema check when isError is set, its client does not (tested).
          return structuredResult(output, feedbackAnswer(output), output.error !== null);
        }),
    );
  }
}
