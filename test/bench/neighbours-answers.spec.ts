import { bracketedLabel, classifyAnswer } from '../../bench/neighbours/answers';

const graphql = (body: unknown, status = 200) => classifyAnswer({ status, text: JSON.stringify(body) });

describe('hostile-neighbour bench: answers classified', () => {
  it('R-TN-10 names a bracketed answer by the words before its colon, quote or bracket', () => {
    expect(bracketedLabel('[tool_memory not read: this request has read 2000000 payload characters]')).toBe('[tool_memory not read]');
    expect(bracketedLabel('[tool_memory no match for "aaaa…" in mem_x]')).toBe('[tool_memory no match for]');
    expect(bracketedLabel('[tool_memory json_path not evaluated]')).toBe('[tool_memory json_path not evaluated]');
  });

  it('R-TN-10 labels each alias of a GraphQL answer, once per kind', () => {
    const answer = graphql({
      data: { a0: '[tool_memory not read: budget]', a1: '[match 1 of 3 at offset 0]\n…', a2: '[tool_memory not read: budget]' },
    });
    expect(answer).toEqual({ label: '[tool_memory not read] + ok', serverError: false });
  });

  it('R-TN-10 labels GraphQL errors by their code, and the internal one as a server error', () => {
    expect(graphql({ errors: [{ message: 'busy', extensions: { code: 'RATE_LIMITED' } }], data: null })).toEqual({
      label: 'GraphQL RATE_LIMITED',
      serverError: false,
    });
    const internal = graphql({
      errors: [{ message: 'Internal server error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
      data: null,
    });
    expect(internal).toEqual({ label: 'GraphQL INTERNAL_SERVER_ERROR', serverError: true });
  });

  it('R-TN-11 labels an HTTP refusal by its status and code; a 5xx is a server error', () => {
    const refused = graphql({ errors: [{ message: 'retry after 1 s', extensions: { code: 'RATE_LIMITED' } }] }, 429);
    expect(refused).toEqual({ label: 'HTTP 429 RATE_LIMITED', serverError: false });
    expect(classifyAnswer({ status: 413, text: 'request entity too large' })).toEqual({ label: 'HTTP 413', serverError: false });
    expect(classifyAnswer({ status: 500, text: '' })).toEqual({ label: 'HTTP 500', serverError: true });
  });

  it('R-TN-10 labels a JSON-RPC batch by each message: tool texts, errors by their service code', () => {
    const batch = [
      { jsonrpc: '2.0', id: 0, result: { content: [{ type: 'text', text: '[tool_memory pattern not searched: busy]' }] } },
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '12.5' }] } },
      { jsonrpc: '2.0', id: 2, error: { code: -32029, message: 'busy', data: { code: 'RATE_LIMITED' } } },
    ];
    expect(classifyAnswer({ status: 200, text: JSON.stringify(batch) })).toEqual({
      label: 'JSON-RPC RATE_LIMITED + [tool_memory pattern not searched] + ok',
      serverError: false,
    });
    const internal = { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal server error.' } };
    expect(classifyAnswer({ status: 200, text: JSON.stringify(internal) })).toEqual({ label: 'JSON-RPC -32603', serverError: true });
    const unauthenticated = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, message: 'Send a token', data: { code: 'UNAUTHENTICATED' } },
    };
    expect(classifyAnswer({ status: 401, text: JSON.stringify(unauthenticated) })).toEqual({
      label: 'HTTP 401 UNAUTHENTICATED',
      serverError: false,
    });
  });

  it('R-TN-10 labels a large answer of data alone ok without parsing it; a large one with an error or a bracketed text is still read whole', () => {
    const payload = `[${'{}, '.repeat(400_000)}{}]`;
    expect(classifyAnswer({ status: 200, text: `{"data":{"priorToolResults":[{"toolOutput":${payload}}]}}` })).toEqual({
      label: 'ok',
      serverError: false,
    });
    // Not JSON at all past its head: proof it was not parsed.
    expect(classifyAnswer({ status: 200, text: `{"data":{"r":"${'x'.repeat(1_100_000)}` })).toEqual({ label: 'ok', serverError: false });
    const bracketed = `{"data":{"a":"${'x'.repeat(1_100_000)}","b":"[tool_memory not read: busy]"}}`;
    expect(classifyAnswer({ status: 200, text: bracketed }).label).toBe('[tool_memory not read] + ok');
    const failed = `{"errors":[{"message":"m","extensions":{"code":"INTERNAL_SERVER_ERROR"}}],"data":{"a":"${'x'.repeat(1_100_000)}"}}`;
    expect(classifyAnswer({ status: 200, text: failed }).serverError).toBe(true);
  });

  it('labels a network error by its code, and a body that is no JSON as such', () => {
    expect(classifyAnswer({ networkError: 'ECONNRESET' })).toEqual({ label: 'network ECONNRESET', serverError: false });
    expect(classifyAnswer({ status: 200, text: '<html>' })).toEqual({ label: 'HTTP 200 not JSON', serverError: false });
  });
});
