import { Migration } from '@mikro-orm/migrations';
import { buildHandle } from '../src/tool-results/handle/build-handle';

const BACKFILL_BATCH = 100;

interface StoredRow {
  id: string;
  mem_id: string;
  tool_name: string;
  tool_use_id: string;
  size_chars: number;
  tool_input: unknown;
  tool_output: unknown;
}

/**
 * Handles are stored with their snapshots (R-LG-1) and compacted snapshots are marked (R-TR-3).
 * Rows written before this get their handle built once, here, from the stored payload, and
 * keep it from then on.
 */
export class Migration20261130004344 extends Migration {
  override async up(): Promise<void> {
    await this.execute(
      `alter table "message_tool_results" add column "summary_oneliner" text null, add column "schema_hint" text null, add column "head_preview" text null, add column "stub" text null, add column "size_tokens" int null, add column "compacted" boolean not null default false;`,
    );
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = (await this.execute(
        `select id, mem_id, tool_name, tool_use_id, size_chars, tool_input, tool_output from message_tool_results where id > ? order by id limit ?`,
        [after, BACKFILL_BATCH],
      )) as StoredRow[];
      if (rows.length === 0) break;
      for (const row of rows) {
        const handle = buildHandle({
          memId: row.mem_id,
          toolName: row.tool_name,
          toolUseId: row.tool_use_id,
          sizeChars: row.size_chars,
          toolInput: row.tool_input,
          toolOutput: row.tool_output,
        });
        await this.execute(`update message_tool_results set summary_oneliner = ?, schema_hint = ?, head_preview = ?, stub = ?, size_tokens = ? where id = ?`, [
          handle.summaryOneliner,
          handle.schemaHint,
          handle.headPreview,
          handle.stub,
          handle.sizeTokens,
          row.id,
        ]);
      }
      after = rows[rows.length - 1].id;
    }
    this.addSql(`alter table "message_tool_results" alter column "summary_oneliner" set not null, alter column "stub" set not null, alter column "size_tokens" set not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "message_tool_results" drop column "summary_oneliner", drop column "schema_hint", drop column "head_preview", drop column "stub", drop column "size_tokens", drop column "compacted";`,
    );
  }
}
