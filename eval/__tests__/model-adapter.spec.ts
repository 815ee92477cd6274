import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVAL_CASES, EvalCase } from '../cases';
import { adapterFromEnv, AnthropicAdapter, ANTHROPIC_MESSAGES_URL, DEFAULT_EVAL_MODEL, FetchLike, RecordedAdapter } from '../model-adapter';
import { answerRecallCall } from '../recall-stand-in';
import { QUERY_SITE_DATA_DEFINITION, RECALL_PRIOR_TOOL_RESULT_DEFINITION, RECALL_TOOL_RESULT_DEFINITION } from '../tool-definitions';
import { ToolUseBlock } from '../transcript';

interface Captured {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A fetch that records each request and answers with the next canned reply; never the network. */
function fakeFetch(replies: Array<{ status?: number; body: unknown }>): { fetch: FetchLike; requests: Captured[] } {
  const requests: Captured[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({ url, headers: init.headers, body: JSON.parse(init.body) as Record<string, unknown> });
    const reply = replies.shift();
    if (reply === undefined) throw new Error('unexpected extra request');
    const status = reply.status ?? 200;
    return { ok: status < 400, status, text: async () => JSON.stringify(reply.body) };
  };
  return { fetch, requests };
}

function apiMessage(content: unknown[], stopReason: string): unknown {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content,
    stop_reason: stopReason,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

const caseById = (id: string): EvalCase => EVAL_CASES.find((c) => c.id === id)!;
const asOfCase = caseById('as-of-date.starter-pack-active');

let networkFetch: jest.SpyInstance;
beforeEach(() => {
  networkFetch = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('no network in tests'));
});
afterEach(() => {
  expect(networkFetch).not.toHaveBeenCalled();
  networkFetch.mockRestore();
});

describe('AnthropicAdapter', () => {
  it('R-EV-1 sends the system prompt with the block and the recall and data tools as production does', async () => {
    const { fetch, requests } = fakeFetch([{ body: apiMessage([{ type: 'text', text: 'As of 2026-05-08, 23.' }], 'end_turn') }]);
    await new AnthropicAdapter({ apiKey: 'test-key', fetch }).respond(asOfCase);

    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request.url).toBe(ANTHROPIC_MESSAGES_URL);
    expect(request.headers).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'test-key',
      'anthropic-version': '2023-06-01',
    });
    expect(request.body).toEqual({
      model: DEFAULT_EVAL_MODEL,
      max_tokens: 1024,
      temperature: 0,
      system: asOfCase.systemPrompt,
      tools: [RECALL_TOOL_RESULT_DEFINITION, RECALL_PRIOR_TOOL_RESULT_DEFINITION, QUERY_SITE_DATA_DEFINITION],
      messages: [{ role: 'user', content: 'How many active members do I have on the Starter Pack plan?' }],
    });
    const system = request.body.system as string;
    expect(system).toContain(`\n\n${asOfCase.block.text}`);
    expect(system).toContain('- 2026-05-08 query_site_data(target="memberships"): 5 plans, Starter Pack 23 active');
    const tools = request.body.tools as Array<{ name: string; input_schema: { type: string; required?: string[] } }>;
    expect(tools.map((t) => [t.name, t.input_schema.type, t.input_schema.required ?? []])).toEqual([
      ['recall_tool_result', 'object', ['mem_id']],
      ['recall_prior_tool_result', 'object', []],
      ['query_site_data', 'object', ['target']],
    ]);
  });

  it('R-EV-1 sends the earlier turns of the conversation before the question, and EVAL_MODEL picks the model', async () => {
    const freshCase = caseById('routing.members-right-now');
    const { fetch, requests } = fakeFetch([{ body: apiMessage([{ type: 'text', text: 'x' }], 'end_turn') }]);
    await new AnthropicAdapter({ apiKey: 'k', model: 'claude-test-model', fetch }).respond(freshCase);
    expect(requests[0].body.model).toBe('claude-test-model');
    expect(requests[0].body.messages).toEqual([...freshCase.history, { role: 'user', content: freshCase.userMessage }]);
  });

  it('R-EV-1 turns a canned reply with text and a data-tool call into a transcript, and stops there', async () => {
    const { fetch, requests } = fakeFetch([
      {
        body: apiMessage(
          [
            { type: 'text', text: 'Let me fetch the current plans.' },
            { type: 'tool_use', id: 'toolu_1', name: 'query_site_data', input: { target: 'memberships' } },
          ],
          'tool_use',
        ),
      },
    ]);
    const transcript = await new AnthropicAdapter({ apiKey: 'k', fetch }).respond(asOfCase);
    expect(requests).toHaveLength(1);
    expect(transcript).toEqual({
      caseId: asOfCase.id,
      source: 'anthropic',
      model: DEFAULT_EVAL_MODEL,
      stopReason: 'tool_use',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me fetch the current plans.' },
            { type: 'tool_use', id: 'toolu_1', name: 'query_site_data', input: { target: 'memberships' } },
          ],
        },
      ],
    });
  });

  it('R-EV-1 answers a recall call from the case snapshots and records the answer the model gives next', async () => {
    const citationCase = caseById('citation.active-members-trend');
    const recallCall: ToolUseBlock = {
      type: 'tool_use',
      id: 'toolu_r',
      name: 'recall_prior_tool_result',
      input: { tool_name: 'query_kpi_trend' },
    };
    const { fetch, requests } = fakeFetch([
      { body: apiMessage([{ type: 'thinking', thinking: '…' }, recallCall], 'tool_use') },
      { body: apiMessage([{ type: 'text', text: 'query_kpi_trend on 2026-05-12: +12% over 7 weeks.' }], 'end_turn') },
    ]);
    const transcript = await new AnthropicAdapter({ apiKey: 'k', fetch }).respond(citationCase);

    const toolResult = { type: 'tool_result', tool_use_id: 'toolu_r', content: answerRecallCall(citationCase, recallCall) };
    expect(JSON.parse(toolResult.content)).toEqual([
      expect.objectContaining({ tool_name: 'query_kpi_trend', created_at: '2026-05-12T10:02:00.000Z' }),
    ]);
    expect(requests[1].body.messages).toEqual([
      { role: 'user', content: citationCase.userMessage },
      { role: 'assistant', content: [recallCall] },
      { role: 'user', content: [toolResult] },
    ]);
    expect(transcript.messages).toEqual([
      { role: 'assistant', content: [recallCall] },
      { role: 'user', content: [toolResult] },
      { role: 'assistant', content: [{ type: 'text', text: 'query_kpi_trend on 2026-05-12: +12% over 7 weeks.' }] },
    ]);
    expect(transcript.stopReason).toBe('end_turn');
  });

  it('R-EV-1 reports an API error with its status and message, never the key', async () => {
    const { fetch } = fakeFetch([
      { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } },
    ]);
    const adapter = new AnthropicAdapter({ apiKey: 'sk-secret-value', fetch });
    const failure = adapter.respond(asOfCase);
    await expect(failure).rejects.toThrow('Anthropic Messages API answered 401: invalid x-api-key');
    await expect(failure).rejects.not.toThrow(/sk-secret-value/);
  });
});

describe('adapter selection and recordings', () => {
  it('R-EV-1 uses the recorded transcripts without a key and the API with one', () => {
    expect(adapterFromEnv({})).toBeInstanceOf(RecordedAdapter);
    expect(adapterFromEnv({ ANTHROPIC_API_KEY: '  ' })).toBeInstanceOf(RecordedAdapter);
    const live = adapterFromEnv({ ANTHROPIC_API_KEY: 'k', EVAL_MODEL: 'claude-x' });
    expect(live).toBeInstanceOf(AnthropicAdapter);
    expect((live as AnthropicAdapter).model).toBe('claude-x');
    expect((adapterFromEnv({ ANTHROPIC_API_KEY: 'k' }) as AnthropicAdapter).model).toBe(DEFAULT_EVAL_MODEL);
  });

  it('R-EV-1 replays every recording of a case, and names the file of a malformed one', async () => {
    const adapter = new RecordedAdapter();
    const all = await adapter.respondAll(asOfCase);
    expect(all.length).toBeGreaterThan(1);
    expect(all.every((t) => t.caseId === asOfCase.id && t.source === 'recorded')).toBe(true);
    expect(await adapter.respond(asOfCase)).toBe(all[0]);

    const dir = mkdtempSync(join(tmpdir(), 'eval-recordings-'));
    try {
      writeFileSync(
        join(dir, 'broken.json'),
        JSON.stringify({ caseId: asOfCase.id, label: 'x', why: 'y', model: 'm', expected: 'maybe', messages: [] }),
      );
      expect(() => new RecordedAdapter(dir)).toThrow('eval/transcripts/broken.json: expected must be "pass" or "fail"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
