import { BadUserInputError, NotFoundError } from '../../common/errors/app-error';
import { FeedbackNextAction } from '../../feedback';
import { errorResult, feedbackAnswer, priorAnswer } from '../mcp-answers';
import { feedbackItemsOf } from '../mcp-tool-inputs';
import { feedbackOutput, type PriorResult } from '../mcp-tool-outputs';

const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

describe('R-MCP-1 MCP tool answers', () => {
  it('R-MCP-1 a coded service error keeps its code, message and field', () => {
    const result = errorResult(new BadUserInputError('limit', 'limit must be between 1 and 100.'), 'req-1');
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('BAD_USER_INPUT: limit must be between 1 and 100.\nfield: limit');
    expect(text(errorResult(new NotFoundError('Space', 'abc'), undefined))).toBe('NOT_FOUND: Space abc was not found.');
  });

  it('R-MCP-1 any other error is masked to INTERNAL_SERVER_ERROR with the request id, no message, stack or SQL', () => {
    const error = Object.assign(new Error('insert into "feedback_events" values ($1) - invalid byte sequence 0x00'), { code: '22021' });
    const result = errorResult(error, 'req-42');
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^INTERNAL_SERVER_ERROR: .*request id req-42/);
    expect(text(result)).not.toMatch(/insert|feedback_events|22021|at /);
    expect(text(errorResult('boom', undefined))).not.toContain('boom');
  });

  it('R-MCP-1 snake_case feedback maps to the service items, quality and ref types upper-cased', () => {
    const items = feedbackItemsOf({
      recalls: [
        {
          recall_event_id: 'rec_1',
          used: false,
          answer_supported: false,
          quality: 'low',
          missing_context: true,
          irrelevant: true,
          feedback_comment: 'stale',
          irrelevant_result_refs: [
            { type: 'tool_result', id: 's1', rank: 2 },
            { type: 'RELATIONSHIP', id: 'r1' },
          ],
          hypothesis_feedback: [
            { hypothesis_id: 'h1', used: true, quality: 'Medium' as 'medium', contradicted: false, feedback_comment: 'ok' },
          ],
          client_feedback_id: 'c1',
        },
        { recall_event_id: 'rec_2', used: true },
      ],
    });
    expect(items).toEqual([
      {
        recallEventId: 'rec_1',
        used: false,
        answerSupported: false,
        quality: 'LOW',
        missingContext: true,
        irrelevant: true,
        feedbackComment: 'stale',
        irrelevantResultRefs: [
          { type: 'TOOL_RESULT', id: 's1', rank: 2 },
          { type: 'RELATIONSHIP', id: 'r1', rank: null },
        ],
        hypothesisFeedback: [{ hypothesisId: 'h1', used: true, quality: 'MEDIUM', contradicted: false, feedbackComment: 'ok' }],
        clientFeedbackId: 'c1',
      },
      {
        recallEventId: 'rec_2',
        used: true,
        answerSupported: null,
        quality: null,
        missingContext: null,
        irrelevant: null,
        feedbackComment: null,
        irrelevantResultRefs: null,
        hypothesisFeedback: null,
        clientFeedbackId: null,
      },
    ]);
  });

  it('R-MCP-1 a feedback batch error names failed_index, code, next_action and remediation', () => {
    const answer = feedbackAnswer(
      feedbackOutput({
        recordedCount: 1,
        feedbackEventIds: ['fb_1'],
        error: {
          failedIndex: 1,
          code: 'RECALL_NOT_FOUND',
          message: 'Recall event rec_x was not found.',
          nextAction: FeedbackNextAction.DROP_FAILED_AND_RESUBMIT_REST,
          remediation: 'Drop this item.',
        },
      }),
    );
    expect(answer).toContain('recorded_count: 1');
    expect(answer).toContain('feedback_event_ids: fb_1');
    expect(answer).toContain('failed_index: 1');
    expect(answer).toContain('code: RECALL_NOT_FOUND');
    expect(answer).toContain('next_action: DROP_FAILED_AND_RESUBMIT_REST');
    expect(answer).toContain('remediation: Drop this item.');
  });

  it('R-MCP-1 prior results say when some were left out, and what to do when none match', () => {
    expect(priorAnswer({ results: [], omitted: 0, has_more: false })).toMatch(/^No prior tool result matches/);
    const result = (memId: string): PriorResult => ({
      mem_id: memId,
      tool_name: 'get_price',
      conversation_id: 'c1',
      created_at: '2026-05-12T09:30:00.000Z',
      stub: 'stub',
    });
    const answer = priorAnswer({ results: [result('mem_a'), result('mem_b')], omitted: 3, has_more: true });
    expect(answer).toMatch(/^2 prior tool results, newest first/);
    expect(answer).toContain('3 more found but not shown');
    expect(answer).toContain('older results exist beyond limit');
  });
});
