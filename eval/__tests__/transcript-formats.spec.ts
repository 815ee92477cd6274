import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Content } from '@google/genai';
import type { ModelMessage } from 'ai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { type ConcreteFormat, isProblem, MessageFormat } from '../../src/compaction/history/history.types';
import { readHistory } from '../../src/compaction/history/read-history';
import { findCase } from '../cases';
import { gradeTranscript } from '../graders';
import { RecordedAdapter } from '../model-adapter';
import { answerRecallCall } from '../recall-stand-in';
import { RecordedTranscript, toolCalls, TranscriptMessage, transcriptText } from '../transcript';
import { transcriptMessagesFrom } from '../transcript-formats';

const DIR = join(__dirname, '..', 'transcripts');
const recorded = new RecordedAdapter().all();
const byFile = (file: string): RecordedTranscript => recorded.find((t) => t.file === file)!;
const rawMessages = (file: string): unknown => (JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { messages: unknown }).messages;

/** The texts of an original recording's blocks, to build a converted one from. */
function originalParts(file: string): { texts: string[]; calls: { name: string; input: Record<string, unknown> }[] } {
  const original = byFile(file);
  return { texts: transcriptText(original).split('\n\n'), calls: toolCalls(original) };
}

/** Each converted recording built against its SDK's own types: compiling this file checks the shape. */
const PLANS = originalParts('routing.plans-shown-last-time--good-recall-tool.json');
const PLANS_CASE = findCase('routing.plans-shown-last-time')!;
const aiSdk: ModelMessage[] = [
  {
    role: 'assistant',
    content: [
      { type: 'text', text: PLANS.texts[0] },
      {
        type: 'tool-call',
        toolCallId: 'call_eval_r1',
        toolName: 'recall_prior_tool_result',
        input: { tool_name: 'query_site_data', limit: 2 },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_eval_r1',
        toolName: 'recall_prior_tool_result',
        output: { type: 'text', value: answerRecallCall(PLANS_CASE, { type: 'tool_use', id: 'x', ...PLANS.calls[0] }) },
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: PLANS.texts[1] }] },
];

const TREND = originalParts('citation.active-members-trend--good-recall-tool.json');
const TREND_CASE = findCase('citation.active-members-trend')!;
const gemini: Content[] = [
  { role: 'model', parts: [{ functionCall: { name: 'recall_prior_tool_result', args: { tool_name: 'query_kpi_trend' } } }] },
  {
    role: 'user',
    parts: [
      {
        functionResponse: {
          name: 'recall_prior_tool_result',
          response: { output: answerRecallCall(TREND_CASE, { type: 'tool_use', id: 'x', ...TREND.calls[0] }) },
        },
      },
    ],
  },
  { role: 'model', parts: [{ text: TREND.texts[0] }] },
];

const FRESH = originalParts('routing.members-right-now--good-fresh-call.json');
const responses: ResponseInputItem[] = [
  {
    type: 'reasoning',
    id: 'rs_eval_r3',
    summary: [{ type: 'summary_text', text: 'The user asks for the member count now; the block only holds snapshots, so fetch it.' }],
  },
  {
    type: 'message',
    id: 'msg_eval_r3',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: FRESH.texts[0], annotations: [] }],
  },
  {
    type: 'function_call',
    id: 'fc_eval_r3',
    call_id: 'call_eval_r3',
    name: 'query_site_data',
    arguments: JSON.stringify({ target: 'member_count' }),
    status: 'completed',
  },
];

const WHILE_FETCHING = originalParts('as-of-date.starter-pack-active--bad-current-while-fetching.json');
const chat: ChatCompletionMessageParam[] = [
  {
    role: 'assistant',
    content: WHILE_FETCHING.texts[0],
    tool_calls: [
      { id: 'call_eval_a2', type: 'function', function: { name: 'query_site_data', arguments: JSON.stringify({ target: 'memberships' }) } },
    ],
  },
];

/** One recording per non-Anthropic format, saved beside its original with the suffix on file name and label. */
const CONVERTED = [
  {
    original: 'as-of-date.starter-pack-active--bad-current-while-fetching',
    suffix: 'openai-chat',
    format: MessageFormat.OPENAI_CHAT,
    note: 'OpenAI Chat',
    typed: chat,
  },
  {
    original: 'routing.members-right-now--good-fresh-call',
    suffix: 'openai-responses',
    format: MessageFormat.OPENAI_RESPONSES,
    note: 'OpenAI Responses',
    typed: responses,
  },
  {
    original: 'citation.active-members-trend--good-recall-tool',
    suffix: 'gemini',
    format: MessageFormat.GEMINI,
    note: 'Gemini',
    typed: gemini,
  },
  {
    original: 'routing.plans-shown-last-time--good-recall-tool',
    suffix: 'ai-sdk',
    format: MessageFormat.AI_SDK,
    note: 'AI SDK',
    typed: aiSdk,
  },
].map((c) => ({ ...c, file: `${c.original}-${c.suffix}.json`, original: `${c.original}.json` }));

/** Tool-call ids renumbered in order of appearance: formats name their calls differently. */
function normalised(messages: TranscriptMessage[]): TranscriptMessage[] {
  const ids = new Map<string, string>();
  const idOf = (id: string) => ids.get(id) ?? ids.set(id, `call_${ids.size}`).get(id)!;
  return messages.map((message) => ({
    role: message.role,
    content: message.content.map((block) => {
      if (block.type === 'tool_use') return { ...block, id: idOf(block.id) };
      if (block.type === 'tool_result') return { ...block, tool_use_id: idOf(block.tool_use_id) };
      return block;
    }),
  }));
}

describe('recordings in other message formats', () => {
  it('R-EV-1 every Anthropic recording (messageFormat absent) reads back to exactly the messages it holds', () => {
    const anthropic = readdirSync(DIR).filter(
      (file) => file.endsWith('.json') && !('messageFormat' in JSON.parse(readFileSync(join(DIR, file), 'utf8'))),
    );
    expect(anthropic.length).toBeGreaterThanOrEqual(26);
    for (const file of anthropic) {
      expect(transcriptMessagesFrom(rawMessages(file), MessageFormat.ANTHROPIC, file)).toEqual(rawMessages(file));
      expect(byFile(file).messages).toEqual(rawMessages(file));
    }
  });

  it('R-EV-1 one recording per non-Anthropic format is shipped, each beside its original', () => {
    const formats = recorded.map((t) => JSON.parse(readFileSync(join(DIR, t.file!), 'utf8')) as { messageFormat?: string });
    expect(new Set(formats.map((f) => f.messageFormat ?? 'ANTHROPIC'))).toEqual(
      new Set(Object.values(MessageFormat).filter((f) => f !== MessageFormat.AUTO)),
    );
    expect(CONVERTED.map((c) => c.format).sort()).toEqual(['AI_SDK', 'GEMINI', 'OPENAI_CHAT', 'OPENAI_RESPONSES']);
  });

  describe.each(CONVERTED)('$file', ({ file, original, suffix, format, note, typed }) => {
    it(`R-EV-1 holds ${format} messages as its SDK types them, and they read in that format`, () => {
      const raw = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { messageFormat: string; messages: unknown[] };
      expect(raw.messageFormat).toBe(format);
      expect(raw.messages).toEqual(typed);
      const history = readHistory(raw.messages, format);
      if (isProblem(history)) throw new Error(history.error);
      expect(history.format).toBe(format);
      expect(history.reading.calls.map((call) => call.name)).toEqual(toolCalls(byFile(original)).map((call) => call.name));
    });

    it('R-EV-1 grades exactly like its Anthropic original: same verdict, tool calls, results and text', () => {
      const converted = byFile(file);
      const source = byFile(original);
      const testCase = findCase(source.caseId)!;
      expect(converted.caseId).toBe(source.caseId);
      expect(converted.label).toBe(`${source.label}-${suffix}`);
      expect(converted.expected).toBe(source.expected);
      expect(converted.why).toBe(`${source.why.replace(/\.$/, '')} (${note} format).`);
      expect(gradeTranscript(testCase, converted)).toEqual(gradeTranscript(testCase, source));
      expect(transcriptText(converted)).toBe(transcriptText(source));
      expect(toolCalls(converted).map(({ name, input }) => ({ name, input }))).toEqual(
        toolCalls(source).map(({ name, input }) => ({ name, input })),
      );
      expect(normalised(converted.messages)).toEqual(normalised(source.messages));
    });
  });
});

describe('transcriptMessagesFrom', () => {
  const read = (format: ConcreteFormat, messages: unknown[]) => transcriptMessagesFrom(messages, format, 'x.json');

  it('R-EV-1 keeps text and tool calls in part order and feeds results back as one user turn (Gemini, AI SDK, Chat)', () => {
    const gemini = read(MessageFormat.GEMINI, [
      {
        role: 'model',
        parts: [{ text: 'a', thought: true }, { text: 'b' }, { functionCall: { name: 't', args: { q: 1 } } }, { text: 'c' }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 't', response: { output: 'r' } } }] },
      { role: 'model', parts: [{ functionCall: { name: 'u', id: 'g2', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'u', id: 'g2', response: { rows: [1] } } }] },
    ]);
    expect(gemini).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'b' },
          { type: 'tool_use', id: 'gemini_call_0', name: 't', input: { q: 1 } },
          { type: 'text', text: 'c' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'gemini_call_0', content: 'r' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'g2', name: 'u', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'g2', content: '{"rows":[1]}' }] },
    ]);

    const aiSdk = read(MessageFormat.AI_SDK, [
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hm' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 't', input: {} },
          { type: 'text', text: 'then' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: { type: 'json', value: { n: 2 } } }] },
    ]);
    expect(aiSdk).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 't', input: {} },
          { type: 'text', text: 'then' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: '{"n":2}' }] },
    ]);

    const call = (id: string) => ({ id, type: 'function', function: { name: 't', arguments: '{"k":"v"}' } });
    const chat = read(MessageFormat.OPENAI_CHAT, [
      { role: 'assistant', content: [{ type: 'text', text: 'looking' }], tool_calls: [call('c1'), call('c2')] },
      { role: 'tool', tool_call_id: 'c1', content: 'one' },
      { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'two' }] },
      { role: 'assistant', content: 'done' },
    ]);
    expect(chat).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'looking' },
          { type: 'tool_use', id: 'c1', name: 't', input: { k: 'v' } },
          { type: 'tool_use', id: 'c2', name: 't', input: { k: 'v' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'one' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'two' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('R-EV-1 reads Responses message, function_call and function_call_output items and skips reasoning', () => {
    expect(
      read(MessageFormat.OPENAI_RESPONSES, [
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'As of today you currently have 23.' }] },
        { type: 'function_call', call_id: 'c1', name: 't', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'r' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x', annotations: [] }] },
        { role: 'assistant', content: 'y' },
      ]),
    ).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'r' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'y' },
        ],
      },
    ]);
  });

  it.each<[ConcreteFormat, unknown[], string]>([
    [
      MessageFormat.OPENAI_CHAT,
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 't' } }] }],
      'messages.0.tool_calls.0.function.arguments must be a string',
    ],
    [
      MessageFormat.OPENAI_CHAT,
      [{ role: 'tool', tool_call_id: 'nope', content: 'r' }],
      'messages.0.tool_call_id "nope" answers no tool call',
    ],
    [
      MessageFormat.OPENAI_CHAT,
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 't', arguments: '[1]' } }] }],
      'messages.0.tool_calls.0.function.arguments must be a JSON object',
    ],
    [MessageFormat.OPENAI_RESPONSES, [{ type: 'function_call', call_id: 'c1', name: 't' }], 'messages.0.arguments must be a string'],
    [
      MessageFormat.OPENAI_RESPONSES,
      [{ type: 'message', role: 'system', content: 'be brief' }],
      'messages.0.role is not something a recording may hold',
    ],
    [
      MessageFormat.GEMINI,
      [{ role: 'model', parts: [{ functionCall: { name: 't', args: 'q' } }] }],
      'messages.0.parts.0.functionCall.args must be an object',
    ],
    [
      MessageFormat.GEMINI,
      [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: '' } }] }],
      'messages.0.parts.0 is not something a recording may hold',
    ],
    [
      MessageFormat.AI_SDK,
      [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 't', output: 'r' }] }],
      'messages.0.content.0.output must be an object',
    ],
    [
      MessageFormat.ANTHROPIC,
      [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] },
        { role: 'user', content: [{ type: 'image' }] },
      ],
      'messages.1.content.0.type is not something',
    ],
    // A list in another format than the one named.
    [
      MessageFormat.GEMINI,
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] }],
      "messages.0 does not fit the list's format",
    ],
  ])('R-EV-1 refuses %s messages that do not read in it, naming the path (%#)', (format, messages, error) => {
    expect(() => read(format, messages)).toThrow(`x.json: messages do not read as ${format}: ${error}`);
  });

  it('R-EV-1 a recording with a malformed history, or an unknown messageFormat, is refused naming the file and the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'eval-formats-'));
    const recording = (messageFormat: unknown, messages: unknown[]) =>
      JSON.stringify({ caseId: 'routing.members-right-now', label: 'x', why: 'y', model: 'm', expected: 'pass', messageFormat, messages });
    try {
      writeFileSync(
        join(dir, 'a.json'),
        recording('OPENAI_CHAT', [
          { role: 'assistant', content: 'ok' },
          { role: 'tool', content: 'r' },
        ]),
      );
      expect(() => new RecordedAdapter(dir)).toThrow(
        "eval/transcripts/a.json: messages do not read as OPENAI_CHAT: messages.1 has role 'tool' but fits no format",
      );
      writeFileSync(
        join(dir, 'a.json'),
        recording('GEMINI', [
          { role: 'model', parts: [{ functionCall: { name: 't' } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'u', response: {} } }] },
        ]),
      );
      expect(() => new RecordedAdapter(dir)).toThrow(
        'eval/transcripts/a.json: messages do not read as GEMINI: messages.1.parts.0.functionResponse.name "u" answers no functionCall',
      );
      writeFileSync(join(dir, 'a.json'), recording('AUTO', [{ role: 'assistant', content: [{ type: 'text', text: 'ok' }] }]));
      expect(() => new RecordedAdapter(dir)).toThrow(
        'eval/transcripts/a.json: messageFormat must be one of ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI, AI_SDK',
      );
      writeFileSync(join(dir, 'a.json'), recording('OPENAI_RESPONSES', [{ type: 'reasoning', id: 'rs', summary: [] }]));
      expect(() => new RecordedAdapter(dir)).toThrow('eval/transcripts/a.json: messages hold no text, tool call or tool result to grade');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
