import { z } from 'zod';
import { FeedbackNextAction } from '../../feedback';
import type { RecallBlockOutcome, RecallMemoryOutcome } from '../../recall';
import { ResultRefType } from '../../recall-events';
import type { ToolResultSnapshot } from '../../tool-results';
import { feedbackAnswer, previouslyFetchedAnswer, priorAnswer, recallMemoryAnswer, structuredResult } from '../mcp-answers';
import {
  feedbackOutput,
  feedbackOutputShape,
  previouslyFetchedOutput,
  previouslyFetchedOutputShape,
  priorResultOf,
  priorToolResultOutputShape,
  recallMemoryOutput,
  recallMemoryOutputShape,
  recallToolResultOutput,
  recallToolResultOutputShape,
} from '../mcp-tool-outputs';

/** Parses as the SDK's JSON Schema checks it: every key known (additionalProperties false). */
function strictParse<S extends z.ZodRawShape>(shape: S, value: unknown): unknown {
  return z.object(shape).strict().parse(value);
}

function snapshot(n: number, createdAt: string): ToolResultSnapshot {
  const memId = `mem_${String(n).padStart(16, '0')}`;
  return {
    id: `00000000-0000-4000-8000-00000000000${n}`,
    memId,
    spaceId: '10000000-0000-4000-8000-000000000000',
    conversationId: '20000000-0000-4000-8000-000000000000',
    messageId: `msg_${n}`,
    toolUseId: `call_${n}`,
    toolName: 'get_price',
    sizeChars: 12,
    createdAt: new Date(createdAt),
    createdKey: createdAt,
    compacted: false,
    handle: {
      memId,
      toolName: 'get_price',
      toolCallId: `call_${n}`,
      sizeChars: 12,
      sizeTokens: 5,
      summaryOneliner: `price ${n}`,
      schemaHint: null,
      headPreview: null,
      stub: `[recall-ledger tool_memory ${memId}] price ${n}`,
    },
  };
}

const REC = 'rec_01J00000000000000000000000';
const FEEDBACK_ACTION = { action: 'submit_recall_session_feedback', recallEventId: REC };

describe('R-MCP-1 MCP structured tool results', () => {
  it('R-MCP-1 recall_tool_result: the structured text is the text content, with its mem id', () => {
    const output = recallToolResultOutput('mem_0000000000000001', '     9\tline 9');
    expect(strictParse(recallToolResultOutputShape, output)).toEqual({ mem_id: 'mem_0000000000000001', text: '     9\tline 9' });
    expect(structuredResult(output, output.text)).toEqual({
      content: [{ type: 'text', text: '     9\tline 9' }],
      structuredContent: output,
    });
  });

  it('R-MCP-1 recall_prior_tool_result: one result with its payload, several with their stubs; the text shows the same', () => {
    const single = {
      results: [priorResultOf(snapshot(1, '2026-05-12T09:30:00.123Z'), '{"price":12}')],
      omitted: 0,
      has_more: true,
    };
    expect(strictParse(priorToolResultOutputShape, single)).toEqual(single);
    expect(single.results[0]).toEqual({
      mem_id: 'mem_0000000000000001',
      tool_name: 'get_price',
      conversation_id: '20000000-0000-4000-8000-000000000000',
      created_at: '2026-05-12T09:30:00.123Z',
      stub: '[recall-ledger tool_memory mem_0000000000000001] price 1',
      payload: '{"price":12}',
    });
    expect(priorAnswer(single)).toBe(
      [
        '1 prior tool result, newest first. These are snapshots, not live data: when referencing one, say "as of <date>".',
        '',
        '### 1. as of 2026-05-12T09:30:00Z — tool get_price — mem_id mem_0000000000000001 — conversation 20000000-0000-4000-8000-000000000000',
        '{"price":12}',
        '',
        '[older results exist beyond limit: narrow with tool_name, since_days or conversation_id, or read one with recall_tool_result(mem_id=...)]',
      ].join('\n'),
    );

    const several = {
      results: [priorResultOf(snapshot(2, '2026-05-12T10:00:00.000Z')), priorResultOf(snapshot(1, '2026-05-12T09:30:00.000Z'))],
      omitted: 1,
      has_more: false,
    };
    expect(strictParse(priorToolResultOutputShape, several)).toEqual(several);
    expect(several.results.every((r) => !('payload' in r))).toBe(true);
    const text = priorAnswer(several);
    expect(text).toMatch(/^2 prior tool results/);
    for (const [i, r] of several.results.entries()) {
      expect(text).toContain(`### ${i + 1}. as of ${r.created_at.replace('.000Z', 'Z')} — tool ${r.tool_name} — mem_id ${r.mem_id}`);
      expect(text).toContain(r.stub);
    }
    expect(text).toContain('1 more found but not shown');
  });

  it('R-MCP-1 recall_memory: ranked hits with lower-case refs, suggested actions and degradations, as the text names them', () => {
    const first = snapshot(1, '2026-05-12T09:30:00.000Z');
    const second = snapshot(2, '2026-05-11T08:00:00.000Z');
    const outcome: RecallMemoryOutcome = {
      recallEventId: REC,
      suggestedActions: [FEEDBACK_ACTION],
      degradations: ['recall_feedback_snapshot_unavailable'],
      results: [
        {
          ref: { type: ResultRefType.TOOL_RESULT, id: first.id, rank: 1 },
          score: 0.9,
          line: '- 2026-05-12 get_price(): price 1',
          snapshot: first,
        },
        {
          ref: { type: ResultRefType.TOOL_RESULT, id: second.id, rank: 2 },
          score: 0.5,
          line: '- 2026-05-11 get_price(): price 2',
          snapshot: second,
        },
      ],
    };
    const output = recallMemoryOutput(outcome);
    expect(strictParse(recallMemoryOutputShape, output)).toEqual(output);
    expect(output.results[0]).toEqual({
      rank: 1,
      mem_id: first.memId,
      tool_name: 'get_price',
      conversation_id: first.conversationId,
      created_at: '2026-05-12T09:30:00.000Z',
      summary: 'price 1',
      line: '2026-05-12 get_price(): price 1',
      ref: { type: 'tool_result', id: first.id, rank: 1 },
    });
    expect(output.suggested_actions).toEqual([{ action: 'submit_recall_session_feedback', recall_event_id: REC }]);

    const text = recallMemoryAnswer('price', output);
    expect(text.split('\n').slice(0, 6)).toEqual([
      `recall_event_id: ${REC}`,
      '2 results (snapshots, not live data; say "as of <date>" when referencing one):',
      '1. 2026-05-12 get_price(): price 1',
      `   mem_id ${first.memId}; ref {type: "tool_result", id: "${first.id}", rank: 1}`,
      '2. 2026-05-11 get_price(): price 2',
      `   mem_id ${second.memId}; ref {type: "tool_result", id: "${second.id}", rank: 2}`,
    ]);
    expect(text).toContain(`- submit_recall_session_feedback(recalls=[{recall_event_id: "${REC}"`);
    expect(text).toContain('degradations: recall_feedback_snapshot_unavailable');

    const none = recallMemoryOutput({ recallEventId: REC, suggestedActions: [], degradations: [], results: [] });
    expect(strictParse(recallMemoryOutputShape, none)).toEqual({
      recall_event_id: REC,
      results: [],
      suggested_actions: [],
      degradations: [],
    });
    expect(recallMemoryAnswer('zzz', none)).toBe(`recall_event_id: ${REC}\nNo stored tool result matches "zzz".`);
  });

  it('R-MCP-1 previously_fetched: the block, its snapshots and event, or nothing with a null event when it was not stored', () => {
    const line = (n: number, createdAt: string) => ({
      snapshotId: `s${n}`,
      memId: `mem_${String(n).padStart(16, '0')}`,
      toolName: 'get_price',
      createdAt: new Date(createdAt),
      text: `- 2026-05-12 get_price(): price ${n}`,
      tokens: 9,
    });
    const outcome: RecallBlockOutcome = {
      text: 'Previously fetched (this conversation, snapshots — not live data):\n- 2026-05-12 get_price(): price 2',
      tokens: 30,
      lines: [line(2, '2026-05-12T10:00:00.250Z')],
      droppedCount: 1,
      injected: true,
      recallEventId: REC,
      suggestedActions: [FEEDBACK_ACTION],
      degradations: [],
    };
    const output = previouslyFetchedOutput(outcome);
    expect(strictParse(previouslyFetchedOutputShape, output)).toEqual({
      recall_event_id: REC,
      injected: true,
      block: outcome.text,
      dropped_count: 1,
      snapshots: [{ mem_id: 'mem_0000000000000002', tool_name: 'get_price', created_at: '2026-05-12T10:00:00.250Z' }],
      suggested_actions: [{ action: 'submit_recall_session_feedback', recall_event_id: REC }],
      degradations: [],
    });
    const text = previouslyFetchedAnswer(output);
    expect(text.startsWith(`${outcome.text}\n(1 older snapshot left out`)).toBe(true);
    expect(text).toContain('- get_price 2026-05-12T10:00:00Z: mem_id mem_0000000000000002');
    expect(text).toContain(`recall_event_id: ${REC}`);

    const degraded = previouslyFetchedOutput({
      text: '',
      tokens: 0,
      lines: [],
      droppedCount: 0,
      injected: false,
      recallEventId: null,
      suggestedActions: [],
      degradations: ['recall_feedback_snapshot_unavailable'],
    });
    expect(strictParse(previouslyFetchedOutputShape, degraded)).toEqual(degraded);
    expect(degraded).toMatchObject({ recall_event_id: null, injected: false, block: '', snapshots: [] });
    expect(previouslyFetchedAnswer(degraded)).toBe(
      [
        'Nothing previously fetched to show for this conversation.',
        '',
        'recall_event_id: (not stored)',
        'degradations: recall_feedback_snapshot_unavailable',
      ].join('\n'),
    );
  });

  it('R-MCP-1 submit_recall_session_feedback: counts and ids, and a batch error as an object the text spells out', () => {
    const ok = feedbackOutput({ recordedCount: 2, feedbackEventIds: ['fb_1', 'fb_2'], error: null });
    expect(strictParse(feedbackOutputShape, ok)).toEqual({ recorded_count: 2, feedback_event_ids: ['fb_1', 'fb_2'], error: null });
    expect(feedbackAnswer(ok)).toBe('recorded_count: 2\nfeedback_event_ids: fb_1, fb_2\nerror: none');
    expect(structuredResult(ok, feedbackAnswer(ok), ok.error !== null).isError).toBeUndefined();

    const failed = feedbackOutput({
      recordedCount: 1,
      feedbackEventIds: ['fb_1'],
      error: {
        failedIndex: 1,
        code: 'COMMENT_REQUIRED',
        message: 'A low quality needs a comment.',
        nextAction: FeedbackNextAction.CORRECT_AND_RESUBMIT_FROM_FAILED,
        remediation: 'Add feedback_comment.',
      },
    });
    expect(strictParse(feedbackOutputShape, failed)).toEqual({
      recorded_count: 1,
      feedback_event_ids: ['fb_1'],
      error: {
        failed_index: 1,
        code: 'COMMENT_REQUIRED',
        message: 'A low quality needs a comment.',
        next_action: 'CORRECT_AND_RESUBMIT_FROM_FAILED',
        remediation: 'Add feedback_comment.',
      },
    });
    const result = structuredResult(failed, feedbackAnswer(failed), failed.error !== null);
    expect(result).toMatchObject({ isError: true, structuredContent: failed });
    expect(feedbackAnswer(failed)).toBe(
      [
        'recorded_count: 1',
        'feedback_event_ids: fb_1',
        'error:',
        '  failed_index: 1',
        '  code: COMMENT_REQUIRED',
        '  message: A low quality needs a comment.',
        '  next_action: CORRECT_AND_RESUBMIT_FROM_FAILED',
        '  remediation: Add feedback_comment.',
        'Items before index 1 are recorded: do not send them again.',
      ].join('\n'),
    );
  });
});
