import { MCP_TOOL_NAMES } from './mcp-tool-inputs';

const TOOLS = new Set<string>(Object.values(MCP_TOOL_NAMES));
/** MCP's method names (`initialize`, `tools/call`, `notifications/initialized`, …). */
const METHOD = /^[a-z]+(\/[a-zA-Z]+){0,2}$/;
const MAX_MESSAGES = 5;

/**
 * How a trace names an MCP request: each message's method, and the tool a `tools/call` names
 * (`tools/call recall_tool_result`). Only names the server knows are written: anything else a
 * client sent becomes `unknown`, so no client text reaches a span.
 */
export function mcpSpanLabel(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  const labels = messages.slice(0, MAX_MESSAGES).map(messageLabel);
  if (labels.length === 0) return undefined;
  const rest = messages.length > MAX_MESSAGES ? `,+${messages.length - MAX_MESSAGES}` : '';
  return `${labels.join(',')}${rest}`;
}

function messageLabel(message: unknown): string {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string' || method.length > 64 || !METHOD.test(method)) return 'unknown';
  if (method !== 'tools/call') return method;
  const tool = params?.name;
  return `tools/call ${typeof tool === 'string' && TOOLS.has(tool) ? tool : 'unknown'}`;
}
