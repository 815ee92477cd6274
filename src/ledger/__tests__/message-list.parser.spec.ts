import { deterministicMessageId, parseMessages } from '../compaction';
import { buildProductResearchTrace } from '../../../test/fixtures/agent-trace.fixture';

describe('parseMessages', () => {
  it('R-LG-3 accepts the fixture trace, unknown blocks included, as the same value', () => {
    const trace: unknown = buildProductResearchTrace();
    const parsed = parseMessages(trace);
    expect(parsed).toEqual({ messages: trace });
    expect('messages' in parsed && parsed.messages).toBe(trace);
  });

  it.each([
    [{}, 'messages', 'messages must be an array'],
    [[null], 'messages[0]', 'messages[0] must be an object'],
    [[{ content: 'hi' }], 'messages[0].role', 'messages[0].role must be a string'],
    [[{ role: 'user', id: 7, content: 'hi' }], 'messages[0].id', 'messages[0].id must be a string'],
    [[{ role: 'user', content: 3 }], 'messages[0].content', 'messages[0].content must be a string or an array of blocks'],
    [[{ role: 'user', content: ['x'] }], 'messages[0].content[0]', 'messages[0].content[0] must be an object'],
    [[{ role: 'user', content: [{ text: 'x' }] }], 'messages[0].content[0].type', 'messages[0].content[0].type must be a string'],
    [[{ role: 'user', content: [{ type: 'text' }] }], 'messages[0].content[0].text', 'messages[0].content[0].text must be a string'],
    [
      [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 5 }] }],
      'messages[0].content[0].name',
      'messages[0].content[0].name must be a string',
    ],
    [
      [
        { role: 'user', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: '' }, { type: 'tool_result' }] },
      ],
      'messages[1].content[1].tool_use_id',
      'messages[1].content[1].tool_use_id must be a string',
    ],
    [
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', is_error: 'yes' }] }],
      'messages[0].content[0].is_error',
      'messages[0].content[0].is_error must be a boolean',
    ],
  ])('R-LG-3 rejects malformed input at the offending path (%#)', (input, path, error) => {
    expect(parseMessages(input)).toEqual({ error, path });
  });
});

describe('deterministicMessageId', () => {
  it('R-LG-3 derives a stable version-8 UUID from conversation and tool_use id', () => {
    const id = deterministicMessageId('5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5b', 'toolu_01HqX8v2Lm4Tn7Rb9Kc3Pw5Zs1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(deterministicMessageId('5b7c1f0e-2a3d-4e5f-8a9b-0c1d2e3f4a5b', 'toolu_01HqX8v2Lm4Tn7Rb9Kc3Pw5Zs1')).toBe(id);
    expect(id).toBe('5189c470-3f51-8c93-a64e-6786f48fa44a');
  });

  it('R-LG-3 keeps the two inputs apart', () => {
    expect(deterministicMessageId('ab', 'c')).not.toBe(deterministicMessageId('a', 'bc'));
    expect(deterministicMessageId('c1', 't1')).not.toBe(deterministicMessageId('c2', 't1'));
  });
});
