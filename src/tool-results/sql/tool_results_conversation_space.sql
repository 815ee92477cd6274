CREATE OR REPLACE FUNCTION public.tool_results_conversation_space(p_team uuid, p_user_id uuid, p_space_ids uuid[], p_conversation_id uuid)
 RETURNS TABLE(space_id uuid)
 LANGUAGE sql
 STABLE
AS $function$
  select c.space_id from conversations c
   where c.team_id = p_team and c.id = p_conversation_id and c.user_id = p_user_id and c.space_id = any(p_space_ids)
$function$;
