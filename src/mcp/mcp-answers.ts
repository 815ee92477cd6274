import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, ErrorCode } from '../common/errors/app-error';
import type { RecallBlockOutcome, RecallMemoryOutcome } from '../recall';
import type { SuggestedAction } from '../recall-events';
import type { SubmissionOutcome } from '../feedback';
import type { ToolResultSnapshot } from '../tool-results';

/**
 * The text answers of the model tools (R-MCP-1). Pure functions of what the services returned:
 * every answer is plain text a model reads, naming ids and arguments in the tools' own
 * snake_case, and never quoting a stack trace, SQL or another tenant's data.
 */

export function textResult(text: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text }], isError: true } : { content: [{ type: 'text', text }] };
}

/** A tool the token has no scope for: a tool error naming the scope, never a protocol error. */
export function missingScopeResult(scope: string): CallToolResult {
  return textResult(`${ErrorCode.FORBIDDEN}: This tool needs the scope ${scope}; the bearer token does not carry it.`, true);
}

/**
 * A service failure as a tool error. A coded error keeps its code, message, offending field and
 * remediation; anything else is masked to INTERNAL_SERVER_ERROR with the request id to report.
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

function actionLines(actions: readonly SuggestedAction[], degradations: readonly string[]): string[] {
  const lines: string[] = [];
  if (actions.length > 0) {
    lines.push('suggested_actions:');
    for (const action of actions) {
      lines.push(
        `- ${action.action}(recalls=[{recall_event_id: "${action.recallEventId}", used: <true|false>, ...}]) once you have answered the user`,
      );
    }
  }
  if (degradations.length > 0) lines.push(`degradations: ${degradations.join(', ')}`);
  return lines;
}

/** `2026-05-12T09:30:00Z`: the snapshot's time to the second, in UTC. */
function isoSecond(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'undated' : date.toISOString().replace(/\.\d{3}Z$/u, 'Z');
}

/** One prior snapshot's heading: its date, tool, mem id and conversation. */
export function priorHeading(record: ToolResultSnapshot, index: number): string {
  return `### ${index + 1}. as of ${isoSecond(record.createdAt)} — tool ${record.toolName} — mem_id ${record.memId} — conversation ${record.conversationId}`;
}

export interface PriorAnswerParts {
  /** Heading and body of each snapshot shown, newest first. */
  blocks: string[];
  /** Snapshots found but left out to keep the answer within its bound. */
  omitted: number;
  /** True when more snapshots match than `limit` returned. */
  hasMore: boolean;
}

export function priorAnswer(parts: PriorAnswerParts): string {
  const shown = parts.blocks.length;
  if (shown === 0 && parts.omitted === 0) {
    return 'No prior tool result matches (recall_prior_tool_result). Widen since_days, drop tool_name or conversation_id, or call the tool fresh.';
  }
  const lines = [
    `${shown} prior tool result${shown === 1 ? '' : 's'}, newest first. These are snapshots, not live data: when referencing one, say "as of <date>".`,
    '',
    parts.blocks.join('\n\n'),
  ];
  const more: string[] = [];
  if (parts.omitted > 0) more.push(`${parts.omitted} more found but not shown, to keep this answer bounded`);
  if (parts.hasMore) more.push('older results exist beyond limit');
  if (more.length > 0)
    lines.push(
      '',
      `[${more.join('; ')}: narrow with tool_name, since_days or conversation_id, or read one with recall_tool_result(mem_id=...)]`,
    );
  return lines.join('\n');
}

export function recallMemoryAnswer(query: string, outcome: RecallMemoryOutcome): string {
  const lines = [`recall_event_id: ${outcome.recallEventId}`];
  if (outcome.results.length === 0) {
    lines.push(`No stored tool result matches ${JSON.stringify(query)}.`);
  } else {
    lines.push(
      `${outcome.results.length} result${outcome.results.length === 1 ? '' : 's'} (snapshots, not live data; say "as of <date>" when referencing one):`,
    );
    for (const hit of outcome.results) {
      lines.push(`${hit.ref.rank}. ${hit.line.replace(/^- /u, '')}`);
      lines.push(
        `   mem_id ${hit.snapshot.memId}; ref {type: "${hit.ref.type.toLowerCase()}", id: "${hit.ref.id}", rank: ${hit.ref.rank}}`,
      );
    }
    lines.push('Read one in full with recall_tool_result(mem_id=..., format="full") or a slice with json_path/query.');
  }
  lines.push(...actionLines(outcome.suggestedActions, outcome.degradations));
  return lines.join('\n');
}

export function previouslyFetchedAnswer(outcome: RecallBlockOutcome): string {
  const lines: string[] = [];
  if (outcome.injected) {
    lines.push(outcome.text);
    if (outcome.droppedCount > 0)
      lines.push(
        `(${outcome.droppedCount} older snapshot${outcome.droppedCount === 1 ? '' : 's'} left out to keep the block within its budget)`,
      );
    lines.push('', 'Read one in full with recall_tool_result(mem_id=...):');
    for (const line of outcome.lines) lines.push(`- ${line.toolName} ${isoSecond(line.createdAt)}: mem_id ${line.memId}`);
  } else {
    lines.push('Nothing previously fetched to show for this conversation.');
  }
  lines.push('', `recall_event_id: ${outcome.recallEventId ?? '(not stored)'}`);
  lines.push(...actionLines(outcome.suggestedActions, outcome.degradations));
  return lines.join('\n');
}

export function feedbackAnswer(outcome: SubmissionOutcome): string {
  const lines = [
    `recorded_count: ${outcome.recordedCount}`,
    `feedback_event_ids: ${outcome.feedbackEventIds.length > 0 ? outcome.feedbackEventIds.join(', ') : '(none)'}`,
  ];
  const error = outcome.error;
  if (error === null) {
    lines.push('error: none');
  } else {
    lines.push(
      'error:',
      `  failed_index: ${error.failedIndex}`,
      `  code: ${error.code}`,
      `  message: ${error.message}`,
      `  next_action: ${error.nextAction}`,
      `  remediation: ${error.remediation}`,
      `Items before index ${error.failedIndex} are recorded: do not send them again.`,
    );
  }
  return lines.join('\n');
}
