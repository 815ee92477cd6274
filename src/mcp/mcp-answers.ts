import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { FeedbackOutput, PreviouslyFetchedOutput, PriorResult, PriorToolResultOutput, RecallMemoryOutput } from './mcp-tool-outputs';

/**
 * The text answers of the model tools (R-MCP-1). Pure functions of the tools' structured results
 * (mcp-tool-outputs.ts), so the text and `structuredContent` say the same: every answer is plain
 * text a model reads, naming ids and arguments in the tools' own snake_case, and never quoting a
 * stack trace, SQL or another tenant's data.
 */

function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/**
 * A structured result and its text, side by side. The SDK's server checks `structuredContent`
 * against the tool's outputSchema only when `isError` is not set, but its client checks it
 * whenever it is present: a tool error with structured content must still match the schema.
 */
export function structuredResult<T extends Record<string, unknown>>(structured: T, text: string, isError = false): CallToolResult {
  return { ...textResult(text, isError), structuredContent: structured };
}

/**
 * A service failure as a tool error. A coded error keeps its code, message, offending field and
 * remediation; anything else is masked to INTERNAL_SERVER_ERROR with the request id to report.
 * Text only, no `structuredContent`: the SDK (server and client) asks for it only when `isError`
 * is not set, so a tool with an outputSchema may still answer an error this way.
 */
export function errorResult(error: unknown, requestId: string | undefined): CallToolResult {
  if (error instanceof AppError) {
    const lines = [`${error.code}: ${error.message}`];
    const { field, remediation } = error.details as { field?: unknown; remediation?: unknown };
    if (typeof field === 'string') lines.push(`field: ${field}`);
    if (typeof remediation === 'string') lines.push(`remediation: ${remediation}`);
    return textResult(lines.join('\n'), true);
  }
  const id = requestId ? ` (request id ${requestId})` : '';
  return textResult(
    `${ErrorCode.INTERNAL_SERVER_ERROR}: The tool failed on the server${id}. Retry later; if it persists, report the request id.`,
    true,
  );
}

function actionLines(actions: RecallMemoryOutput['suggested_actions'], degradations: readonly string[]): string[] {
  const lines: string[] = [];
  if (actions.length > 0) {
    lines.push('suggested_actions:');
    for (const action of actions) {
      lines.push(
        `- ${action.action}(recalls=[{recall_event_id: "${action.recall_event_id}", used: <true|false>, ...}]) once you have answered the user`,
      );
    }
  }
  if (degradations.length > 0) lines.push(`degradations: ${degradations.join(', ')}`);
  return lines;
}

/** `2026-05-12T09:30:00Z`: an ISO instant to the second. */
function isoSecond(instant: string): string {
  return instant.replace(/\.\d+Z$/u, 'Z');
}

/** One prior result's heading: its date, tool, mem id and conversation. */
export function priorHeading(result: PriorResult, index: number): string {
  return `### ${index + 1}. as of ${isoSecond(result.created_at)} — tool ${result.tool_name} — mem_id ${result.mem_id} — conversation ${result.conversation_id}`;
}

/** One prior result as the answer shows it: its heading, then its payload window if it has one, else its stub. */
export function priorBlock(result: PriorResult, index: number): string {
  return `${priorHeading(result, index)}\n${result.payload ?? result.stub}`;
}

export function priorAnswer(output: PriorToolResultOutput): string {
  const shown = output.results.length;
  if (shown === 0 && output.omitted === 0) {
    return 'No prior tool result matches (recall_prior_tool_result). Widen since_days, drop tool_name or conversation_id, or call the tool fresh.';
  }
  const lines = [
    `${shown} prior tool result${shown === 1 ? '' : 's'}, newest first. These are snapshots, not live data: when referencing one, say "as of <date>".`,
    '',
    output.results.map(priorBlock).join('\n\n'),
  ];
  const more: string[] = [];
  if (output.omitted > 0) more.push(`${output.omitted} more found but not shown, to keep this answer bounded`);
  if (output.has_more) more.push('older results exist beyond limit');
  if (more.length > 0)
    lines.push(
      '',
      `[${more.join('; ')}: narrow with tool_name, since_days or conversation_id, or read one with recall_tool_result(mem_id=...)]`,
    );
  return lines.join('\n');
}

export function recallMemoryAnswer(query: string, output: RecallMemoryOutput): string {
  const lines = [`recall_event_id: ${output.recall_event_id}`];
  if (output.results.length === 0) {
    lines.push(`No stored tool result matches ${JSON.stringify(query)}.`);
  } else {
    lines.push(
      `${output.results.length} result${output.results.length === 1 ? '' : 's'} (snapshots, not live data; say "as of <date>" when referencing one):`,
    );
    for (const hit of output.results) {
      lines.push(`${hit.rank}. ${hit.line}`);
      lines.push(`   mem_id ${hit.mem_id}; ref {type: "${hit.ref.type}", id: "${hit.ref.id}", rank: ${hit.ref.rank}}`);
    }
    lines.push('Read one in full with recall_tool_result(mem_id=..., format="full") or a slice with json_path/query.');
  }
  lines.push(...actionLines(output.suggested_actions, output.degradations));
  return lines.join('\n');
}

export function previouslyFetchedAnswer(output: PreviouslyFetchedOutput): string {
  const lines: string[] = [];
  if (output.injected) {
    lines.push(output.block);
    if (output.dropped_count > 0)
      lines.push(
        `(${output.dropped_count} older snapshot${output.dropped_count === 1 ? '' : 's'} left out to keep the block within its budget)`,
      );
    lines.push('', 'Read one in full with recall_tool_result(mem_id=...):');
    for (const snapshot of output.snapshots)
      lines.push(`- ${snapshot.tool_name} ${isoSecond(snapshot.created_at)}: mem_id ${snapshot.mem_id}`);
  } else {
    lines.push('Nothing previously fetched to show for this conversation.');
  }
  lines.push('', `recall_event_id: ${output.recall_event_id ?? '(not stored)'}`);
  lines.push(...actionLines(output.suggested_actions, output.degradations));
  return lines.join('\n');
}

export function feedbackAnswer(output: FeedbackOutput): string {
  const lines = [
    `recorded_count: ${output.recorded_count}`,
    `feedback_event_ids: ${output.feedback_event_ids.length > 0 ? output.feedback_event_ids.join(', ') : '(none)'}`,
  ];
  const error = output.error;
  if (error === null) {
    lines.push('error: none');
  } else {
    lines.push(
      'error:',
      `  failed_index: ${error.failed_index}`,
      `  code: ${error.code}`,
      `  message: ${error.message}`,
      `  next_action: ${error.next_action}`,
      `  remediation: ${error.remediation}`,
      `Items before index ${error.failed_index} are recorded: do not send them again.`,
    );
  }
  return lines.join('\n');
}
