import type { Pool } from 'pg';
import type { BenchContext, ResultRow } from './context';

/** docs/requirements.md §9: stored bytes per snapshot at most the raw payload bytes. */
const RATIO_TARGET = 1.0;
const TABLE = 'message_tool_results';

interface IndexSize {
  name: string;
  bytes: number;
  scans: number;
}

/** What the table holds on disk, by part; pg_total_relation_size is their sum. */
interface TableSize {
  rows: number;
  total: number;
  /** Main fork + free space map + visibility map. */
  heap: number;
  /** The TOAST table and its index. */
  toast: number;
  indexes: IndexSize[];
}

async function tableSize(raw: Pool, table: string): Promise<TableSize> {
  const { rows } = await raw.query<{ rows: string; total: string; table_bytes: string; toast: string; indexes_bytes: string }>(
    `select (select count(*) from ${table}) as rows, pg_total_relation_size(c.oid) as total, pg_table_size(c.oid) as table_bytes,
            coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) as toast, pg_indexes_size(c.oid) as indexes_bytes
       from pg_class c where c.oid = $1::regclass`,
    [table],
  );
  const indexes = await raw.query<{ name: string; bytes: string; scans: string }>(
    `select indexrelname as name, pg_relation_size(indexrelid) as bytes, idx_scan as scans
       from pg_stat_user_indexes where relid = $1::regclass order by pg_relation_size(indexrelid) desc`,
    [table],
  );
  const r = rows[0];
  return {
    rows: Number(r.rows),
    total: Number(r.total),
    heap: Number(r.table_bytes) - Number(r.toast),
    toast: Number(r.toast),
    indexes: indexes.rows.map((i) => ({ name: i.name, bytes: Number(i.bytes), scans: Number(i.scans) })),
  };
}

/**
 * The payload as a client sends it: compact JSON (JSON.stringify) of tool_input plus tool_output,
 * in UTF-8 bytes. jsonb's own text form adds a space after every `:` and `,`, so it is not used as
 * the measure; it is printed beside it. The data set repeats 256 payload variants, so the
 * distinct payloads are serialized once each and weighted by their count.
 */
async function rawPayloadBytes(raw: Pool, table: string): Promise<{ compact: number; jsonbText: number }> {
  const { rows } = await raw.query<{ n: string; tool_input: unknown; tool_output: unknown; text_bytes: string }>(
    `select count(*) as n, tool_input, tool_output, min(octet_length(tool_input::text) + octet_length(tool_output::text)) as text_bytes
       from ${table} group by tool_input, tool_output`,
  );
  let count = 0;
  let compact = 0;
  let jsonbText = 0;
  for (const row of rows) {
    const n = Number(row.n);
    count += n;
    compact += n * (Buffer.byteLength(JSON.stringify(row.tool_input)) + Buffer.byteLength(JSON.stringify(row.tool_output)));
    jsonbText += n * Number(row.text_bytes);
  }
  return { compact: compact / count, jsonbText: jsonbText / count };
}

const perRow = (bytes: number, rows: number): string => `${(bytes / rows).toFixed(0)} B`;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * Bytes on disk per snapshot (heap + TOAST + indexes, pg_total_relation_size) against the raw
 * payload bytes per snapshot, right after loading: it must run before any op writes or deletes.
 * Each index's size and scans so far (pg_stat_user_indexes) are printed, for what each one costs.
 */
export async function storageOps(ctx: BenchContext): Promise<ResultRow[]> {
  const size = await tableSize(ctx.raw, TABLE);
  if (size.rows === 0) throw new Error(`storage: ${TABLE} is empty`);
  const payload = await rawPayloadBytes(ctx.raw, TABLE);
  const stored = size.total / size.rows;
  const ratio = stored / payload.compact;
  const notes = [
    `${size.rows.toLocaleString('en-US')} rows, ${mib(size.total)}: ${perRow(size.total, size.rows)} per snapshot = heap ${perRow(size.heap, size.rows)} + TOAST ${perRow(size.toast, size.rows)} + indexes ${perRow(size.total - size.heap - size.toast, size.rows)}`,
    `raw payload per snapshot: ${payload.compact.toFixed(0)} B compact JSON of tool_input + tool_output (${payload.jsonbText.toFixed(0)} B as jsonb::text)`,
    ...size.indexes.map(
      (i) =>
        `index ${i.name}: ${perRow(i.bytes, size.rows)} per snapshot (${mib(i.bytes)}), ${i.scans.toLocaleString('en-US')} scans so far`,
    ),
  ];
  return [
    {
      op: `storage, ${TABLE}`,
      concurrency: 1,
      service: null,
      raw: null,
      ratio,
      ratioBasis: 'bytes',
      target: `stored ≤ ${RATIO_TARGET.toFixed(1)}× raw payload (${stored.toFixed(0)} / ${payload.compact.toFixed(0)} B)`,
      pass: ratio <= RATIO_TARGET,
      notes,
    },
  ];
}
