CREATE OR REPLACE FUNCTION public.tenancy_team_ids()
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'public', 'pg_temp'
AS $function$ select id from teams order by id $function$;
