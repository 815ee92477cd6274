CREATE OR REPLACE FUNCTION public.message_tool_results_search_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        new.search_vector := message_tool_results_search_document(new.tool_name, new.tool_input, new.tool_output);
        return new;
      end $function$;
