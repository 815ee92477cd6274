import { z } from 'zod';
import { FeedbackNextAction, type SubmissionOutcome } from '../feedback';
import type { RecallBlockOutcome, RecallMemoryOutcome } from '../recall';
import { ResultRefType, type SuggestedAction } from '../recall-events';
import type { ToolResultSnapshot } from '../tool-results';

/**
 * The MCP tools' structured results (R-MCP-1, MCP 2025-06-18 `outputSchema`/`structuredContent`):
 * their shapes, in the inputs' snake_case, and pure builders from what the services returned. The
 * text answers in mcp-answers.ts are rendered from these objects, so the two cannot disagree.
 */

const int = () => z.number().int();
const count = () => int().min(0);
/** An instant as ISO 8601 in UTC, to the millisecond. */
const instant = () => z.string().datetime();

const REF_TYPES = Object.values(ResultRefType).map((type) => type.toLowerCase()) as [string, ...string[]];

const suggestedActions = z
  .array(
    z.object({
      action: z.string().describe('The tool to call, e.g. submit_recall_session_feedback.'),
      recall_event_id: z.string().describe('The recall to judge with it.'),
    }),
  )
  .describe('Calls to make once you have answered the user (feedback, while the team collects it).');

const degradations = z
  .array(z.string())
  .describe('What this answer had to do without, e.g. recall_feedback_snapshot_unavailable; empty when nothing.');

export const recallToolResultOutputShape = {
  mem_id: z.string().describe('The mem id asked for, as given.'),
  text: z
    .string()
    .describe(
      "The answer, exactly as the text content: the stub, a window of the payload, its lines, its matches or a json_path's value; " +
        'a cut window ends with the call that reads on, and a bracketed [tool_memory …] text says why nothing was read.',
    ),
};

const priorResult = z.object({
  mem_id: z.string(),
  tool_name: z.string(),
  conversation_id: z.string(),
  created_at: instant().describe('When the result was recorded: a snapshot, not live data.'),
  stub: z.string().describe('The stored stub (summary); re-expand it with recall_tool_result(mem_id=...).'),
  payload: z
    .string()
    .optional()
    .describe('Only when a single result is answered: its payload windowed as recall_tool_result(format="full") answers it.'),
});

export const priorToolResultOutputShape = {
  results: z.array(priorResult).describe('The results shown, newest first.'),
  omitted: count().describe('Results found but left out to keep the answer within its bound.'),
  has_more: z.boolean().describe('More results match than limit returned.'),
};

const resultRef = z.object({
  type: z.enum(REF_TYPES),
  id: z.string(),
  rank: int().min(1),
});

export const recallMemoryOutputShape = {
  recall_event_id: z.string().describe('The recall event of this search, to judge with submit_recall_session_feedback.'),
  results: z
    .array(
      z.object({
        rank: int().min(1),
        mem_id: z.string(),
        tool_name: z.string(),
        conversation_id: z.string(),
        created_at: instant(),
        summary: z.string().describe("The result's stored one-line summary."),
        line: z.string().describe('The hit as one dated line: date, tool call and summary.'),
        ref: resultRef.describe('The ref to name in irrelevant_result_refs.'),
      }),
    )
    .describe('Ranked hits, best first.'),
  suggested_actions: suggestedActions,
  degradations,
};

export const previouslyFetchedOutputShape = {
  recall_event_id: z.string().nullable().describe("The block's recall event; null when it could not be stored (see degradations)."),
  injected: z.boolean().describe('Whether there is a block to show (at least one snapshot).'),
  block: z.string().describe('The "Previously fetched" block as it goes into a system prompt; empty when not injected.'),
  dropped_count: count().describe('Older snapshots left out to keep the block within its token budget.'),
  snapshots: z
    .array(z.object({ mem_id: z.string(), tool_name: z.string(), created_at: instant() }))
    .describe("The block's snapshots, in its order (newest first)."),
  suggested_actions: suggestedActions,
  degradations,
};

export const feedbackOutputShape = {
  recorded_count: count().describe('Judgments recorded (new or replayed), all before error.failed_index.'),
  feedback_event_ids: z.array(z.string()).describe('Their ids, in input order.'),
  error: z
    .object({
      failed_index: count().describe('The first item not recorded; the items before it are.'),
      code: z.string(),
      message: z.string(),
      next_action: z.nativeEnum(FeedbackNextAction),
      remediation: z.string(),
    })
    .nullable()
    .describe('Null when every item was recorded.'),
};

export type RecallToolResultOutput = z.infer<z.ZodObject<typeof recallToolResultOutputShape>>;
export type PriorResult = z.infer<typeof priorResult>;
export type PriorToolResultOutput = z.infer<z.ZodObject<typeof priorToolResultOutputShape>>;
export type RecallMemoryOutput = z.infer<z.ZodObject<typeof recallMemoryOutputShape>>;
export type PreviouslyFetchedOutput = z.infer<z.ZodObject<typeof previouslyFetchedOutputShape>>;
export type FeedbackOutput = z.infer<z.ZodObject<typeof feedbackOutputShape>>;

/** Lookup answers recall_tool_result with text only: that text, and the mem id it was for. */
export function recallToolResultOutput(memId: string, text: string): RecallToolResultOutput {
  return { mem_id: memId, text };
}

/** One prior result; `payload` only for the single result answered with it. */
export function priorResultOf(record: ToolResultSnapshot, payload?: string): PriorResult {
  const result: PriorResult = {
    mem_id: record.memId,
    tool_name: record.toolName,
    conversation_id: record.conversationId,
    created_at: record.createdAt.toISOString(),
    stub: record.handle.stub,
  };
  if (payload !== undefined) result.payload = payload;
  return result;
}

function actionsOf(actions: readonly SuggestedAction[]): RecallMemoryOutput['suggested_actions'] {
  return actions.map((action) => ({ action: action.action, recall_event_id: action.recallEventId }));
}

export function recallMemoryOutput(outcome: RecallMemoryOutcome): RecallMemoryOutput {
  return {
    recall_event_id: outcome.recallEventId,
    results: outcome.results.map((hit) => ({
      rank: hit.ref.rank,
      mem_id: hit.snapshot.memId,
      tool_name: hit.snapshot.toolName,
      conversation_id: hit.snapshot.conversationId,
      created_at: hit.snapshot.createdAt.toISOString(),
      summary: hit.snapshot.handle.summaryOneliner,
      line: hit.line.replace(/^- /u, ''),
      ref: { type: hit.ref.type.toLowerCase(), id: hit.ref.id, rank: hit.ref.rank },
    })),
    suggested_actions: actionsOf(outcome.suggestedActions),
    degradations: [...outcome.degradations],
  };
}

export function previouslyFetchedOutput(outcome: RecallBlockOutcome): PreviouslyFetchedOutput {
  return {
    recall_event_id: outcome.recallEventId,
    injected: outcome.injected,
    block: outcome.text,
    dropped_count: outcome.droppedCount,
    snapshots: outcome.lines.map((line) => ({ mem_id: line.memId, tool_name: line.toolName, created_at: line.createdAt.toISOString() })),
    suggested_actions: actionsOf(outcome.suggestedActions),
    degradations: [...outcome.degradations],
  };
}

export function feedbackOutput(outcome: SubmissionOutcome): FeedbackOutput {
  const { error } = outcome;
  return {
    recorded_count: outcome.recordedCount,
    feedback_event_ids: [...outcome.feedbackEventIds],
    error:
      error === null
        ? null
        : {
            failed_index: error.failedIndex,
            code: error.code,
            message: error.message,
            next_action: error.nextAction,
            remediation: error.remediation,
          },
  };
}
