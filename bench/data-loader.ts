import { Client } from 'pg';
import { payloadText } from '../src/common/text/json-text';
import { buildHandle } from '../src/tool-results/handle/build-handle';
import { payloadVariants } from './payloads';
import { BENCH_SEED, seededUuid, seededUuidSql } from './seeded';

export interface DataSetSize {
  users: number;
  conversations: number;
  snapshots: number;
}

/** The loaded data set: conversation i belongs to user i % users and holds one assistant message. */
export interface DataSet extends DataSetSize {
  teamId: string;
  spaceId: string;
  userIds: string[];
  conversationIds: string[];
  messageIds: string[];
  ownerOf(conversation: number): string;
}

const PLACEHOLDER_MEM_ID = 'mem_placeholderxxxx';
const VARIANTS = 256;
const CHUNK = 200_000;

/**
 * A table that has lived a while is all-visible, and the planner picks index-only scans on it.
 * Right after a bulk load, a snapshot held elsewhere (an autoanalyze started mid-load) can keep
 * VACUUM from marking pages, and plans then change from run to run. So: wait for other
 * snapshots to end and vacuum again, until (nearly) every page is all-visible.
 */
async function settleVisibilityMap(client: Client): Promise<{ first: number; last: number; extraVacuums: number }> {
  const visible = async () => {
    const { rows } = await client.query<{ pct: number }>(
      `select (100.0 * relallvisible / greatest(relpages, 1))::float8 as pct from pg_class where relname = 'message_tool_results'`,
    );
    return rows[0].pct;
  };
  const first = await visible();
  let extraVacuums = 0;
  for (let last = first; extraVacuums < 3 && last < 99; last = await visible()) {
    extraVacuums++;
    for (let waited = 0; waited < 60_000; waited += 250) {
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where backend_xmin is not null and pid <> pg_backend_pid()`,
      );
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await client.query('vacuum message_tool_results');
  }
  return { first, last: await visible(), extraVacuums };
}

/** Ids only: what the ops need to address an already loaded data set. */
function describeDataSet(size: DataSetSize): DataSet {
  const userIds = Array.from({ length: size.users }, (_, i) => seededUuid(`user:${i}`));
  return {
    ...size,
    teamId: seededUuid('team'),
    spaceId: seededUuid('space'),
    userIds,
    conversationIds: Array.from({ length: size.conversations }, (_, i) => seededUuid(`conversation:${i}`)),
    messageIds: Array.from({ length: size.conversations }, (_, i) => seededUuid(`message:${i}`)),
    ownerOf: (conversation) => userIds[conversation % size.users],
  };
}

/**
 * Loads the data set into a migrated database: a team, a space, the users (all members), the
 * conversations with one message each, and the snapshots — set-based, in chunks. Snapshot n
 * goes to conversation n % conversations, carries payload variant hash(n) % 256 (~1 KB) and is
 * newer than n - 1, over the last 90 days. Ends with VACUUM ANALYZE.
 */
export async function loadDataSet(url: string, size: DataSetSize, log: (line: string) => void): Promise<DataSet> {
  const data = describeDataSet(size);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // Bulk-load settings for this session only. FK triggers are skipped: the rows are consistent by
    // construction. Commits stay synchronous: VACUUM cannot mark pages of async-committed rows all-visible.
    await client.query(`set session_replication_role = replica; set maintenance_work_mem = '1GB'`);
    await client.query('begin');
    await client.query('insert into teams (id) values ($1)', [data.teamId]);
    await client.query(`insert into spaces (id, team_id, name) values ($1, $2, 'bench')`, [data.spaceId, data.teamId]);
    await client.query('insert into users (id, team_id) select u, $2 from unnest($1::uuid[]) u', [data.userIds, data.teamId]);
    await client.query('insert into space_members (team_id, space_id, user_id) select $3, $2, u from unnest($1::uuid[]) u', [
      data.userIds,
      data.spaceId,
      data.teamId,
    ]);
    const owners = data.conversationIds.map((_, i) => data.ownerOf(i));
    await client.query(
      `create temp table bench_conversations on commit preserve rows as
       select (ord - 1)::int as ord, id, user_id, message_id from unnest($1::uuid[], $2::uuid[], $3::uuid[]) with ordinality as t(id, user_id, message_id, ord)`,
      [data.conversationIds, owners, data.messageIds],
    );
    await client.query('alter table bench_conversations add primary key (ord)');
    await client.query(`insert into conversations (team_id, id, user_id, space_id) select $2, id, user_id, $1 from bench_conversations`, [
      data.spaceId,
      data.teamId,
    ]);
    await client.query(
      `insert into messages (team_id, id, conversation_id, user_id, role) select $1, message_id, id, user_id, 'assistant' from bench_conversations`,
      [data.teamId],
    );
    const variants = payloadVariants(BENCH_SEED, VARIANTS);
    // Each variant's handle is built as the write path builds it; a row's stub then names its own mem id.
    const handles = variants.map((v) =>
      buildHandle({
        memId: PLACEHOLDER_MEM_ID,
        toolName: v.toolName,
        toolUseId: 'toolu',
        sizeChars: payloadText(v.toolOutput).length,
        toolInput: v.toolInput,
        toolOutput: v.toolOutput,
      }),
    );
    // Storage external: no value is compressed here, since a compressed value is copied into
    // message_tool_results as it is, and the service's writes compress (or not) under that table's settings.
    await client.query(
      `create temp table bench_payloads (ord int primary key, tool_name text, tool_input jsonb storage external, tool_output jsonb storage external,
         size_chars int, summary_oneliner text storage external, schema_hint text storage external, head_preview text storage external,
         stub text storage external, size_tokens int, search_vector tsvector storage external) on commit preserve rows`,
    );
    await client.query(
      `insert into bench_payloads (ord, tool_name, tool_input, tool_output, size_chars, summary_oneliner, schema_hint, head_preview, stub, size_tokens)
       select (ord - 1)::int, tool_name, tool_input::jsonb, tool_output::jsonb, size_chars, summary_oneliner, schema_hint, head_preview, stub, size_tokens
         from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[])
              with ordinality as t(tool_name, tool_input, tool_output, size_chars, summary_oneliner, schema_hint, head_preview, stub, size_tokens, ord)`,
      [
        variants.map((v) => v.toolName),
        variants.map((v) => JSON.stringify(v.toolInput)),
        variants.map((v) => JSON.stringify(v.toolOutput)),
        variants.map((v) => payloadText(v.toolOutput).length),
        handles.map((h) => h.summaryOneliner),
        handles.map((h) => h.schemaHint),
        handles.map((h) => h.headPreview),
        handles.map((h) => h.stub),
        handles.map((h) => h.sizeTokens),
      ],
    );
    // The search document is a trigger's work, and triggers are off for this load: computed once a variant.
    await client.query(
      `update bench_payloads set search_vector = message_tool_results_search_document(tool_name, tool_input, tool_output)`,
    );
    await client.query('commit');

    const anchor = (await client.query<{ at: string }>(`select date_trunc('minute', now()) - interval '1 minute' as at`)).rows[0].at;
    for (let from = 1; from <= size.snapshots; from += CHUNK) {
      const to = Math.min(size.snapshots, from + CHUNK - 1);
      await client.query(
        `insert into message_tool_results
           (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
            summary_oneliner, schema_hint, head_preview, stub, size_tokens, search_vector, team_id, space_generation)
         select ${seededUuidSql(`'snapshot:' || n`)}, c.user_id, c.message_id, c.id, p.tool_name, p.tool_input, p.tool_output,
                $1::timestamptz - ($2::int - n) * (interval '90 days' / $2::int), 'toolu_bench_' || n, m.mem_id, p.size_chars,
                p.summary_oneliner, p.schema_hint, p.head_preview, replace(p.stub, '${PLACEHOLDER_MEM_ID}', m.mem_id), p.size_tokens, p.search_vector,
                $6::uuid, 1
           from generate_series($3::int, $4::int) as n
           cross join lateral (select 'mem_' || translate(substr(md5('${BENCH_SEED}:mem:' || n), 1, 16), '0189', 'wxyz') as mem_id) m
           join bench_conversations c on c.ord = n % $5
           join bench_payloads p on p.ord = ((n::bigint * 2654435761) % 4294967296) >> 24`,
        [anchor, size.snapshots, from, to, size.conversations, data.teamId],
      );
      log(`  snapshots ${to.toLocaleString('en-US')} / ${size.snapshots.toLocaleString('en-US')}`);
    }
    await client.query('vacuum (analyze) message_tool_results, conversations, messages, users, spaces, space_members');
    const map = await settleVisibilityMap(client);
    log(
      `  visibility map: ${map.first.toFixed(1)}% of snapshot pages all-visible after VACUUM, ${map.last.toFixed(1)}% after ${map.extraVacuums} more`,
    );
    const { rows } = await client.query<{ checksum: string }>(
      `select sum(hashtext(id::text || conversation_id::text || mem_id || tool_name || size_chars))::text as checksum from message_tool_results`,
    );
    log(`  data set checksum ${rows[0].checksum} (same seed and size, same checksum)`);
  } finally {
    await client.end();
  }
  return data;
}
