import { Scope } from '../tenancy';
import { MCP_TOOL_NAMES } from './mcp-tool-inputs';

/** The scope each tool needs: the scope its GraphQL twin declares. */
export const MCP_TOOL_SCOPES: Readonly<Record<string, Scope>> = {
  [MCP_TOOL_NAMES.RECALL_TOOL_RESULT]: Scope.MEMORY_READ,
  [MCP_TOOL_NAMES.RECALL_PRIOR_TOOL_RESULT]: Scope.MEMORY_READ,
  [MCP_TOOL_NAMES.RECALL_MEMORY]: Scope.MEMORY_READ,
  [MCP_TOOL_NAMES.PREVIOUSLY_FETCHED]: Scope.MEMORY_READ,
  [MCP_TOOL_NAMES.SUBMIT_FEEDBACK]: Scope.FEEDBACK_WRITE,
};

export interface MissingToolScope {
  tool: string;
  scope: Scope;
  /** The JSON-RPC id of the call, so the refusal answers it. */
  id: string | number | null;
}

/**
 * The first `tools/call` in a JSON-RPC body (one message or a batch) whose tool needs a scope the
 * token lacks; null when every call is allowed. Unknown tools pass: the server answers those.
 */
export function missingToolScope(body: unknown, hasScope: (scope: Scope) => boolean): MissingToolScope | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params, id } = message as { method?: unknown; params?: { name?: unknown }; id?: unknown };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    if (!Object.hasOwn(MCP_TOOL_SCOPES, params.name)) continue;
    const scope = MCP_TOOL_SCOPES[params.name];
    if (!hasScope(scope)) return { tool: params.name, scope, id: typeof id === 'string' || typeof id === 'number' ? id : null };
  }
  return null;
}
