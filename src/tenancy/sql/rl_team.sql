CREATE OR REPLACE FUNCTION public.rl_team()
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$ select nullif(current_setting('app.team_id', true), '')::uuid $function$;
