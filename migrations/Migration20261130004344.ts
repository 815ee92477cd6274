import { Migration } from '@mikro-orm/migrations';

// A migration is a frozen record: it imports nothing from src/, so replaying it later runs what
// ran the first time. The strings below are copies, as of this migration, of the v2 stub format
// (src/tool-results/handle/stub.ts) and of the head preview's rules (head-preview.ts,
// text-bounds.ts); they must not follow later changes there.

// JavaScript's `[\s\p{Cc}]` (text-bounds.ts toSingleLine) as a PostgreSQL class: C0 controls
// and space, DEL, C1 controls and no-break space, then the other Unicode white space. (NUL
// cannot occur: PostgreSQL text and jsonb do not hold it.)
const LINE_BREAKING = String.raw`[\u0001-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+`;

/** The stub's preview line keeps at most this many UTF-8 bytes of the head preview (see below). */
const STUB_PREVIEW_MAX_BYTES = 32;

/**
 * Handles are stored with their snapshots (R-LG-1) and compacted snapshots are marked (R-TR-3).
 *
 * Rows written before this get a plain handle, built here in SQL by one set-based UPDATE over all
 * of them before the columns become not null (a fresh database has no rows yet, so there this
 * migration only changes the schema). Each row keeps its handle from then on:
 * - head_preview: the payload text (a JSON string as its text, other JSON as its jsonb text)
 *   with white space and control runs collapsed to one space, trimmed, at most 120 code points
 *   (119 and `…` when longer); null when blank.
 * - summary_oneliner: `<tool_name> result, <size_chars> chars`, not the rule-based summary
 *   that rows written later get.
 * - schema_hint: null.
 * - size_tokens: an estimate, ceil(size_chars / 4); later rows get the tokenizer's count.
 * - stub: the v2 stub's lines for a payload under the answer bound, for every row (the keyed
 *   re-expand line renderStub gives larger payloads is left out). Its preview line holds the
 *   head preview cut to STUB_PREVIEW_MAX_BYTES bytes: SQL has no tokenizer to shrink the line as
 *   renderStub does, and a token is at least one byte, so the line costs at most ~35 tokens and,
 *   with a tool name of ordinary length (the other lines cost ~75-90), the stub stays within its
 *   120-token bound whatever the payload holds.
 */
export class Migration20261130004344 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "message_tool_results" add column "summary_oneliner" text null, add column "schema_hint" text null, add column "head_preview" text null, add column "stub" text null, add column "size_tokens" int null, add column "compacted" boolean not null default false;`,
    );
    // One statement over a whole development database may take longer than the connection's
    // statement timeout; lifted for this transaction only.
    this.addSql(`set local statement_timeout = 0;`);
    this.addSql(`
with "line" as (
  select "id", "mem_id", "size_chars",
         btrim(regexp_replace("tool_name", '${LINE_BREAKING}', ' ', 'g'), ' ') as "tool",
         btrim(regexp_replace(
           case jsonb_typeof("tool_output") when 'string' then "tool_output" #>> '{}' else "tool_output"::text end,
           '${LINE_BREAKING}', ' ', 'g'), ' ') as "payload"
    from "message_tool_results"
   where "stub" is null
), "handle" as (
  select "id", "mem_id", "size_chars",
         case when char_length("tool") <= 64 then "tool" else rtrim(left("tool", 63), ' ') || '…' end as "tool",
         case when char_length("summary") <= 100 then "summary" else rtrim(left("summary", 99), ' ') || '…' end as "summary",
         case when "payload" = '' then null
              when char_length("payload") <= 120 then "payload"
              else rtrim(left("payload", 119), ' ') || '…' end as "preview"
    from "line", ltrim("tool" || ' result, ' || "size_chars" || ' chars') as "summary"
), "shown" as (
  select "handle".*,
         case when octet_length("preview") <= ${STUB_PREVIEW_MAX_BYTES} then "preview"
              else rtrim(left("preview", (
                select max(k) from generate_series(0, ${STUB_PREVIEW_MAX_BYTES}) as k
                 where octet_length(left("preview", k)) <= ${STUB_PREVIEW_MAX_BYTES} - octet_length('…'))), ' ') || '…'
         end as "stub_preview"
    from "handle"
)
update "message_tool_results" as r
   set "summary_oneliner" = s."summary",
       "schema_hint" = null,
       "head_preview" = s."preview",
       "size_tokens" = ceil(s."size_chars" / 4.0)::int,
       "stub" = concat_ws(E'\\n',
         '[recall-ledger tool_memory v2]',
         'tool=' || s."tool",
         'size_original=' || s."size_chars" || ' chars',
         'summary: ' || s."summary",
         'preview: ' || s."stub_preview",
         're-expand: recall_tool_result(mem_id=''' || s."mem_id" || ''', format="full"); '
           || 'slice: query=<substring> | offset=<n>, max_chars=<n> | json_path=<dotted.path>')
  from "shown" as s
 where r."id" = s."id";`);
    this.addSql(`set local statement_timeout to default;`);
    this.addSql(
      `alter table "message_tool_results" alter column "summary_oneliner" set not null, alter column "stub" set not null, alter column "size_tokens" set not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "message_tool_results" drop column "summary_oneliner", drop column "schema_hint", drop column "head_preview", drop column "stub", drop column "size_tokens", drop column "compacted";`,
    );
  }
}
