CREATE OR REPLACE FUNCTION public.rl_user()
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$ select nullif(current_setting('app.user_id', true), '')::uuid $function$;
