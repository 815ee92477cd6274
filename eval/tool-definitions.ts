/** A tool as the Messages API takes it: a name, a description and a JSON Schema of the input. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: {
    type: 'object';
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties?: boolean;
  };
}

export const RECALL_TOOL_RESULT = 'recall_tool_result';
export const RECALL_PRIOR_TOOL_RESULT = 'recall_prior_tool_result';

/** The tools that read stored snapshots; calling one of them is answering from recall. */
export const RECALL_TOOL_NAMES: ReadonlySet<string> = new Set([RECALL_TOOL_RESULT, RECALL_PRIOR_TOOL_RESULT]);

/*
 * The recall tools as the service's model-facing (MCP) tools declare them (R-MCP-1): the same
 * snake_case arguments, types and optionality, bounds stated in the descriptions and enforced by
 * the service (an out-of-range value gets a coded error text, not a schema error).
 */
export const RECALL_TOOL_RESULT_DEFINITION: ToolDefinition = {
  name: RECALL_TOOL_RESULT,
  description:
    'Read back a stored tool result by its mem id (from a stub or a listing): the stub (summary), the payload ' +
    'windowed (full, offset/max_chars), only the parts matching a query, or the value at a json_path. ' +
    'A stored result is a snapshot from when it was fetched, not live data.',
  input_schema: {
    type: 'object',
    properties: {
      mem_id: { type: 'string', description: 'The mem id from a stub or a listing, e.g. mem_abcdefghijklmnop.' },
      format: {
        type: 'string',
        enum: ['summary', 'full'],
        description: 'summary (default): the stored stub; full: the payload, windowed from offset 0.',
      },
      query: { type: 'string', description: 'Only the parts of the payload that mention this text.' },
      offset: { type: 'integer', description: 'Start of the window, in characters (continue a cut answer with the offset it names).' },
      max_chars: { type: 'integer', description: 'Most characters of the window.' },
      json_path: {
        type: 'string',
        description:
          'RFC 9535 JSONPath into a JSON payload, e.g. $.items[3].price, $.items[*].sku, $..price, $.items[?(@.price < 10)]; or dotted: items.3.price.',
      },
      line_start: {
        type: 'integer',
        description: '1-based first line to read, numbered in the answer (continue a cut answer with the line it names).',
      },
      line_count: { type: 'integer', description: 'How many lines from line_start (default: to the last line).' },
      max_tokens: { type: 'integer', description: 'Lowers the token bound of this answer (at least 100).' },
    },
    required: ['mem_id'],
    additionalProperties: false,
  },
};

export const RECALL_PRIOR_TOOL_RESULT_DEFINITION: ToolDefinition = {
  name: RECALL_PRIOR_TOOL_RESULT,
  description:
    'The most recent stored results of a tool (by tool_name, since_days, conversation_id), newest first, each with ' +
    'its date and mem id. A single result comes with its payload. These are snapshots of what was shown before, ' +
    'not live data: call the data tool itself for the current state.',
  input_schema: {
    type: 'object',
    properties: {
      tool_name: { type: 'string', description: 'Only results of this tool.' },
      since_days: { type: 'integer', description: 'Only results of the last N days (1 to 3650).' },
      conversation_id: { type: 'string', description: 'Only results of this conversation (UUID).' },
      limit: { type: 'integer', description: 'How many results, newest first (1 to 100; default 1).' },
    },
    additionalProperties: false,
  },
};

/** The host's live-data tools the eval cases use: calling one is a re-query. */
export const QUERY_SITE_DATA_DEFINITION: ToolDefinition = {
  name: 'query_site_data',
  description:
    'Fetches live data from the membership site now: the most recent members, the membership plans with their ' +
    'active member counts, or the current member count.',
  input_schema: {
    type: 'object',
    properties: {
      target: { type: 'string', enum: ['recent_members', 'memberships', 'member_count'] },
    },
    required: ['target'],
    additionalProperties: false,
  },
};

export const QUERY_KPI_TREND_DEFINITION: ToolDefinition = {
  name: 'query_kpi_trend',
  description: 'Fetches the live trend of a KPI, oldest period first.',
  input_schema: {
    type: 'object',
    properties: {
      metric: { type: 'string', enum: ['active_members', 'new_members', 'churned_members', 'revenue'] },
      granularity: { type: 'string', enum: ['day', 'week', 'month'] },
    },
    required: ['metric', 'granularity'],
    additionalProperties: false,
  },
};

/** The tools a turn is sent with, in the order production sends them: recall first, then the data tool. */
export function toolsForCase(freshTool: ToolDefinition): ToolDefinition[] {
  return [RECALL_TOOL_RESULT_DEFINITION, RECALL_PRIOR_TOOL_RESULT_DEFINITION, freshTool];
}
