import { mcpSpanLabel } from '../mcp-span-label';

describe('mcpSpanLabel (R-OP-8: how a trace names an MCP request)', () => {
  it('R-OP-8 a message by its method, a tools/call by the tool it names', () => {
    expect(mcpSpanLabel({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).toBe('initialize');
    expect(mcpSpanLabel({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('notifications/initialized');
    expect(
      mcpSpanLabel({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'recall_memory', arguments: { query: 'q' } } }),
    ).toBe('tools/call recall_memory');
  });

  it('R-OP-8 no client text reaches a span: unknown tools and odd methods are "unknown"', () => {
    expect(mcpSpanLabel({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'secret-tool-name' } })).toBe('tools/call unknown');
    expect(mcpSpanLabel({ jsonrpc: '2.0', id: 1, method: 'secret text with spaces' })).toBe('unknown');
    expect(mcpSpanLabel({ jsonrpc: '2.0', id: 1, method: `x${'a'.repeat(80)}` })).toBe('unknown');
    expect(mcpSpanLabel({ jsonrpc: '2.0', id: 1 })).toBe('unknown');
    expect(mcpSpanLabel(null)).toBe('unknown');
  });

  it('R-OP-8 an array names five messages at most and counts the rest; an empty one names nothing', () => {
    const ping = { jsonrpc: '2.0', method: 'ping' };
    expect(mcpSpanLabel(Array.from({ length: 7 }, () => ping))).toBe('ping,ping,ping,ping,ping,+2');
    expect(mcpSpanLabel([])).toBeUndefined();
  });
});
