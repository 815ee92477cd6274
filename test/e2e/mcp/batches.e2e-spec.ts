/**
 * R-TN-10 JSON-RPC batches on /mcp: MCP 2025-06-18 removed them, so a batch under that revision or
 * a later one is refused before any message is handled; older revisions keep them (the SDK caps
 * their length), and a request without the header is the SDK's 2025-03-26.
 */
import { listenForMcp } from './support/mcp';
import { createTestApp, identity, type TestApp } from '../../support/test-app';

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const BATCH = [
  { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
];

let t: TestApp;
let mcpUrl: URL;

beforeAll(async () => {
  t = await createTestApp();
  mcpUrl = await listenForMcp(t);
});

afterAll(() => t?.close());

async function postMcp(body: unknown, headers: Record<string, string>): Promise<Response> {
  const { token } = await identity(['memory:read']);
  return fetch(mcpUrl, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
}

describe('R-TN-10 JSON-RPC batches on /mcp', () => {
  it.each(['2025-06-18', '2025-11-25'])('R-TN-10 a batch under protocol %s is refused with a JSON-RPC Invalid Request', async (version) => {
    const refused = await postMcp(BATCH, { 'mcp-protocol-version': version });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: JSON-RPC batches were removed in MCP 2025-06-18; send one message per POST.',
        data: { code: 'BAD_REQUEST' },
      },
    });
  });

  it('R-TN-10 the same messages one per POST under 2025-06-18 are answered', async () => {
    const single = await postMcp(BATCH[0], { 'mcp-protocol-version': '2025-06-18' });
    expect(single.status).toBe(200);
    expect(await single.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { tools: expect.any(Array) } });
  });

  it.each([
    ['2025-03-26', { 'mcp-protocol-version': '2025-03-26' }],
    ['no header (the SDK assumes 2025-03-26)', {}],
  ])('R-TN-10 a batch under %s still works', async (_name, headers: Record<string, string>) => {
    const answered = await postMcp(BATCH, headers);
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { id: number; result: { tools: unknown[] } }[];
    expect(body.map((message) => message.id).sort()).toEqual([1, 2]);
    for (const message of body) expect(message.result.tools.length).toBeGreaterThan(0);
  });
});
