CREATE OR REPLACE FUNCTION public.message_tool_results_search_document(name text, input jsonb, output jsonb)
 RETURNS tsvector
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
      declare
        head tsvector := setweight(to_tsvector('simple'::regconfig, name), 'A')
                      || setweight(jsonb_to_tsvector('simple'::regconfig, input, '["string", "numeric", "key"]'), 'B');
      begin
        return head || strip(jsonb_to_tsvector('simple'::regconfig, output, '["string", "numeric", "key"]'));
      exception when program_limit_exceeded then
        return head || strip(to_tsvector('simple'::regconfig, left(output::text, 500000)));
      end $function$;
