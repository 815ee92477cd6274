// The MCP module's public surface: what the app may use.
export { McpModule } from './mcp.module';
