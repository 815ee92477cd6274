import { EvalCase, EvalSnapshot } from './cases';
import { RECALL_PRIOR_TOOL_RESULT, RECALL_TOOL_RESULT } from './tool-definitions';
import { ToolUseBlock } from './transcript';
import { renderBlockLine } from '../src/recall/block/previously-fetched-block';

/*
 * Answers the model's recall calls from the case's own snapshots, so a live run can go on to
 * the answer that eval 3 grades. It stands in for the service's recall tools: the same facts
 * (mem_id, tool_name, tool_input, created_at, tool_output) as JSON rather than the service's
 * text layout, every matching result with its payload; the payloads are small, so any key of
 * recall_tool_result answers with the whole payload.
 */

const DAY_MS = 86_400_000;

export function answerRecallCall(testCase: EvalCase, call: ToolUseBlock): string {
  if (call.name === RECALL_PRIOR_TOOL_RESULT) return JSON.stringify(priorResults(testCase, call.input));
  if (call.name === RECALL_TOOL_RESULT) return recallOne(testCase, call.input);
  return `[tool_memory unknown tool: ${call.name}]`;
}

function priorResults(testCase: EvalCase, input: Record<string, unknown>): unknown[] {
  const toolName = typeof input.tool_name === 'string' ? input.tool_name : null;
  const sinceDays = typeof input.since_days === 'number' ? input.since_days : null;
  const limit = typeof input.limit === 'number' && input.limit >= 1 ? Math.floor(input.limit) : 1;
  const since = sinceDays === null ? null : Date.parse(`${testCase.today}T23:59:59Z`) - sinceDays * DAY_MS;
  return testCase.snapshots
    .filter((s) => toolName === null || s.toolName === toolName)
    .filter((s) => since === null || s.createdAt.getTime() >= since)
    .slice(0, limit)
    .map(priorResult);
}

function priorResult(s: EvalSnapshot): Record<string, unknown> {
  return {
    mem_id: s.memId,
    tool_name: s.toolName,
    tool_input: s.toolInput,
    created_at: s.createdAt.toISOString(),
    tool_output: s.toolOutput,
  };
}

function recallOne(testCase: EvalCase, input: Record<string, unknown>): string {
  const memId = typeof input.mem_id === 'string' ? input.mem_id : '';
  const found = testCase.snapshots.find((s) => s.memId === memId);
  if (found === undefined) return `[tool_memory not found: ${memId.slice(0, 64)}]`;
  const keyed = ['query', 'offset', 'max_chars', 'json_path', 'line_start', 'line_count'].some((key) => input[key] !== undefined);
  if (input.format === 'full' || keyed) return JSON.stringify(found.toolOutput);
  return renderBlockLine({ ...found, handle: { summaryOneliner: found.summary } });
}
