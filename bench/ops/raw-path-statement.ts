/**
 * A JSONPath value read in PostgreSQL with `#>`, in the service's scope (the user's own row in an
 * allowed space, by the conversation's space): the jsonPath row's raw side, and the bare stack's.
 */
export const RAW_PATH = `select r.tool_output #> $3::text[] as value from message_tool_results r join conversations c on c.team_id = r.team_id and c.id = r.conversation_id
  where r.team_id = $5 and r.user_id = $1 and c.space_id = any($4::uuid[]) and r.mem_id = $2`;
