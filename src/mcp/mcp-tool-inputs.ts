import { z } from 'zod';
import { type FeedbackItem, FeedbackQuality } from '../feedback';
import { ResultRefType } from '../recall-events';

/** The MCP tools' names and input shapes (the seeds' snake_case arguments), and their mapping to the services' inputs. */

export const MCP_TOOL_NAMES = {
  RECALL_TOOL_RESULT: 'recall_tool_result',
  RECALL_PRIOR_TOOL_RESULT: 'recall_prior_tool_result',
  RECALL_MEMORY: 'recall_memory',
  PREVIOUSLY_FETCHED: 'previously_fetched',
  SUBMIT_FEEDBACK: 'submit_recall_session_feedback',
} as const;

const int = () => z.number().int();

// The seed's snake_case arguments (R-MCP-1). Bounds are the services' own: a value out of range
// gets the same coded error text as over GraphQL, not a schema error.
export const recallToolResultShape = {
  mem_id: z.string().describe('The mem id from a stub or a listing, e.g. mem_01J...'),
  format: z.enum(['summary', 'full']).optional().describe('summary (default): the stored stub; full: the payload, windowed from offset 0.'),
  query: z.string().optional().describe('Only the parts of the payload that mention this text.'),
  offset: int().optional().describe('Start of the window, in characters (continue a cut answer with the offset it names).'),
  max_chars: int().optional().describe('Most characters of the window.'),
  json_path: z
    .string()
    .optional()
    .describe(
      'RFC 9535 JSONPath into a JSON payload, e.g. $.items[3].price, $.items[*].sku, $..price, $.items[?(@.price < 10)]; or dotted: items.3.price.',
    ),
  line_start: int()
    .optional()
    .describe('1-based first line to read, numbered in the answer (continue a cut answer with the line it names).'),
  line_count: int().optional().describe('How many lines from line_start (default: to the last line).'),
  pattern: z
    .string()
    .optional()
    .describe(
      'RE2 regular expression, like grep -n: the numbered lines matching it (from line_start for line_count lines), matches counted. ' +
        'Case-sensitive; (?i) for case-insensitive. No backreferences or lookaround.',
    ),
  context_lines: int().optional().describe('With pattern: lines of context before and after each matching line (0 to 50; default 0).'),
  max_tokens: int().optional().describe('Lowers the token bound of this answer (at least 100).'),
};

export const priorToolResultShape = {
  tool_name: z.string().optional().describe('Only results of this tool.'),
  since_days: int().optional().describe('Only results of the last N days (1 to 3650).'),
  conversation_id: z.string().optional().describe('Only results of this conversation (UUID).'),
  limit: int().optional().describe('How many results, newest first (1 to 100; default 1). A single result comes with its payload.'),
};

export const recallMemoryShape = {
  space_id: z.string().describe('The space to search (UUID).'),
  query: z.string().describe('Words to find in stored tool results.'),
  conversation_id: z.string().optional().describe('Only results of this conversation (UUID).'),
  tool_name: z.string().optional().describe('Only results of this tool.'),
  since_days: int().optional().describe('Only results of the last N days (1 to 3650).'),
  limit: int().optional().describe('Most results (1 to 50; default 5).'),
};

export const previouslyFetchedShape = {
  conversation_id: z.string().describe('The conversation (UUID).'),
  user_message: z.string().optional().describe("The user's latest message (used for recall-intent gating)."),
};

const quality = z.enum(['low', 'medium', 'high', 'LOW', 'MEDIUM', 'HIGH']);
const refType = z.enum([
  ...(Object.values(ResultRefType).map((t) => t.toLowerCase()) as [string, ...string[]]),
  ...(Object.values(ResultRefType) as [string, ...string[]]),
]);

export const feedbackShape = {
  recalls: z
    .array(
      z.object({
        recall_event_id: z.string().describe('The recall_event_id a recall answered with.'),
        used: z.boolean().describe('Whether you used at least one result.'),
        answer_supported: z.boolean().optional(),
        quality: quality.optional(),
        missing_context: z.boolean().optional(),
        irrelevant: z.boolean().optional(),
        feedback_comment: z
          .string()
          .optional()
          .describe('Required for low quality, missing context or irrelevant results; no private user content.'),
        irrelevant_result_refs: z.array(z.object({ type: refType, id: z.string(), rank: int().optional() })).optional(),
        hypothesis_feedback: z
          .array(
            z.object({
              hypothesis_id: z.string(),
              used: z.boolean().optional(),
              quality: quality.optional(),
              contradicted: z.boolean().optional(),
              feedback_comment: z.string().optional(),
            }),
          )
          .optional(),
        client_feedback_id: z.string().optional().describe('Idempotency key: a replay records nothing new.'),
      }),
    )
    .describe('One judgment per recall, in order (1 to 50).'),
};

type FeedbackArgs = z.infer<z.ZodObject<typeof feedbackShape>>;

/** snake_case judgments to the service's items: quality and ref types as its upper-case enums. */
export function feedbackItemsOf(args: FeedbackArgs): FeedbackItem[] {
  return args.recalls.map((r) => ({
    recallEventId: r.recall_event_id,
    used: r.used,
    answerSupported: r.answer_supported ?? null,
    quality: r.quality ? (r.quality.toUpperCase() as FeedbackQuality) : null,
    missingContext: r.missing_context ?? null,
    irrelevant: r.irrelevant ?? null,
    feedbackComment: r.feedback_comment ?? null,
    irrelevantResultRefs:
      r.irrelevant_result_refs?.map((ref) => ({ type: ref.type.toUpperCase(), id: ref.id, rank: ref.rank ?? null })) ?? null,
    hypothesisFeedback:
      r.hypothesis_feedback?.map((h) => ({
        hypothesisId: h.hypothesis_id,
        used: h.used ?? null,
        quality: h.quality ? (h.quality.toUpperCase() as FeedbackQuality) : null,
        contradicted: h.contradicted ?? null,
        feedbackComment: h.feedback_comment ?? null,
      })) ?? null,
    clientFeedbackId: r.client_feedback_id ?? null,
  }));
}
