import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ActorContext } from '../../tenancy';

/** Runs a tool call's work in its span, every failure answered as a tool error (McpToolsService.run). */
export type ToolRunner = (tool: string, work: () => Promise<CallToolResult>) => Promise<CallToolResult>;

/** One model-facing tool: registers itself on a request's server, for its actor. */
export interface McpTool {
  register(server: McpServer, actor: ActorContext, run: ToolRunner): void | Promise<void>;
}
