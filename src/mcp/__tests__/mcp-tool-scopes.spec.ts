import { Scope } from '../../tenancy';
import { MCP_TOOL_NAMES } from '../mcp-tool-inputs';
import { MCP_TOOL_SCOPES, missingToolScope } from '../mcp-tool-scopes';

const readerOnly = (scope: Scope) => scope === Scope.MEMORY_READ;
const call = (name: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

describe('R-MCP-1 the scope each tool call needs', () => {
  it('names a scope for every tool, the one its GraphQL twin declares', () => {
    expect(Object.keys(MCP_TOOL_SCOPES).sort()).toEqual(Object.values(MCP_TOOL_NAMES).sort());
    expect(MCP_TOOL_SCOPES[MCP_TOOL_NAMES.SUBMIT_FEEDBACK]).toBe(Scope.FEEDBACK_WRITE);
  });

  it('finds the first call the token has no scope for, in one message or a batch, with its id', () => {
    expect(missingToolScope(call(MCP_TOOL_NAMES.SUBMIT_FEEDBACK, 'a'), readerOnly)).toEqual({
      tool: MCP_TOOL_NAMES.SUBMIT_FEEDBACK,
      scope: Scope.FEEDBACK_WRITE,
      id: 'a',
    });
    const batch = [call(MCP_TOOL_NAMES.RECALL_MEMORY, 1), call(MCP_TOOL_NAMES.SUBMIT_FEEDBACK, 2)];
    expect(missingToolScope(batch, readerOnly)).toMatchObject({ id: 2 });
    expect(missingToolScope(call(MCP_TOOL_NAMES.SUBMIT_FEEDBACK, { bad: 'id' }), readerOnly)).toMatchObject({ id: null });
  });

  it.each([
    ['an allowed call', call(MCP_TOOL_NAMES.RECALL_TOOL_RESULT)],
    ['another method', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['an unknown tool', call('no_such_tool')],
    ['an inherited property name', call('constructor')],
    ['a tool name that is not a string', call(42)],
    ['no body', undefined],
    ['a scalar body', 'tools/call'],
  ])('lets %s through to the server', (_label, body) => {
    expect(missingToolScope(body, readerOnly)).toBeNull();
  });
});
