import { randomUUID } from 'node:crypto';
import { payloadText } from '../../src/common/text/json-text';
import { buildHandle } from '../../src/tool-results/handle/build-handle';
import { newMemId } from '../../src/tool-results/mem-id';
import { type Task } from '../load-runner';
import { payloadVariants, type ToolCall } from '../payloads';
import { BENCH_SEED, pickIndex, seededRandom, seededUuid } from '../seeded';
import { type BenchContext, clean, errorNotes, loadOptions, type ResultRow, measureSideBySide } from './context';

const RECORD = `mutation($input: [ToolResultInput!]!) {
  recordToolResults(input: $input) { createdCount duplicateCount snapshots { id memId } }
}`;

const CAP = 200;
const TARGET_RATIO = 0.6;

/** The service's insert, same columns and casts (record_tool_results), stamped with the space's current generation. */
const INSERT = `insert into message_tool_results
  (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
   summary_oneliner, schema_hint, head_preview, stub, size_tokens, compacted, team_id, space_generation)
  select $1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, coalesce($8::timestamptz, clock_timestamp()), $9, $10, $11, $12, $13, $14, $15, $16, false,
         $17, s.generation
    from spaces s where s.team_id = $17 and s.id = $18
  on conflict (team_id, user_id, tool_use_id, space_generation) do nothing returning id`;
const LOCK = `select id, space_id from conversations where team_id = $3 and id = $2 and user_id = $1 for no key update`;
/** The least work that keeps the cap: the rows past the newest CAP of the conversation, by the scoped index. */
const TRIM = `delete from message_tool_results where team_id = $4 and id in (
  select id from message_tool_results where team_id = $4 and conversation_id = $1 and user_id = $2 and not compacted
   order by created_at desc, id desc offset $3)`;

interface Target {
  conversationId: string;
  messageId: string;
  userIndex: number;
}

/**
 * recordToolResults, one ~1 KB item per call at concurrency 16, against the raw transaction
 * BEGIN; lock the conversation; INSERT; DELETE past the cap; COMMIT. Two shapes: spread over
 * all conversations, and all into one conversation kept at its cap.
 */
export async function recordToolResultsOps(ctx: BenchContext): Promise<ResultRow[]> {
  const outputs = payloadVariants(BENCH_SEED + 1, 64);
  const spread = (random: () => number): Target => {
    const c = pickIndex(random, ctx.data.conversations);
    return { conversationId: ctx.data.conversationIds[c], messageId: ctx.data.messageIds[c], userIndex: c % ctx.data.users };
  };
  const hot = await hotConversation(ctx);
  return [
    await measure(ctx, 'recordToolResults ×1, many conversations', outputs, spread),
    await measure(ctx, `recordToolResults ×1, one conversation at cap ${CAP}`, outputs, () => hot),
  ];
}

async function measure(ctx: BenchContext, op: string, outputs: ToolCall[], choose: (random: () => number) => Target): Promise<ResultRow> {
  const { concurrency } = ctx.settings;
  const options = loadOptions(ctx.settings, concurrency);
  const spaceId = ctx.data.spaceId;
  const tag = op.includes('one') ? 'one' : 'many';

  // The raw side stores the same handle columns; building them is the service's own work.
  const handles = outputs.map((call) =>
    buildHandle({
      memId: newMemId(),
      toolName: call.toolName,
      toolUseId: 'toolu',
      sizeChars: payloadText(call.toolOutput).length,
      toolInput: call.toolInput,
      toolOutput: call.toolOutput,
    }),
  );
  const rawRandom = seededRandom(BENCH_SEED + 11);
  const rawTask: Task = async (worker, seq) => {
    const target = choose(rawRandom);
    const call = outputs[(worker + seq) % outputs.length];
    const handle = handles[(worker + seq) % outputs.length];
    const userId = ctx.data.userIds[target.userIndex];
    const client = await ctx.raw.connect();
    try {
      await client.query('begin');
      const locked = await client.query(LOCK, [userId, target.conversationId, ctx.data.teamId]);
      if (locked.rowCount !== 1) throw new Error('raw: conversation not found');
      const inserted = await client.query(INSERT, [
        randomUUID(),
        userId,
        target.messageId,
        target.conversationId,
        call.toolName,
        JSON.stringify(call.toolInput),
        JSON.stringify(call.toolOutput),
        null,
        `toolu_raw_${tag}_${worker}_${seq}`,
        newMemId(),
        payloadText(call.toolOutput).length,
        handle.summaryOneliner,
        handle.schemaHint,
        handle.headPreview,
        handle.stub,
        handle.sizeTokens,
        ctx.data.teamId,
        spaceId,
      ]);
      if (inserted.rowCount !== 1) throw new Error('raw: row not inserted');
      await client.query(TRIM, [target.conversationId, userId, CAP, ctx.data.teamId]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };

  const serviceRandom = seededRandom(BENCH_SEED + 11);
  const serviceTask: Task = async (worker, seq) => {
    const target = choose(serviceRandom);
    const call = outputs[(worker + seq) % outputs.length];
    const input = [
      {
        spaceId,
        conversationId: target.conversationId,
        messageId: target.messageId,
        toolUseId: `toolu_svc_${tag}_${worker}_${seq}`,
        ...call,
      },
    ];
    const data = await ctx.service.call<{ recordToolResults: { createdCount: number } }>(RECORD, { input }, ctx.tokens[target.userIndex]);
    if (data.recordToolResults.createdCount !== 1) throw new Error('service: row not created');
  };

  const { raw, service } = await measureSideBySide(ctx, `${op}`, rawTask, serviceTask, options);
  const ratio = service.rps / raw.rps;
  const notes = errorNotes(['service', service], ['raw', raw]);
  if (tag === 'one')
    notes.push(`rows in the conversation afterwards: ${await countRows(ctx, choose(serviceRandom).conversationId)} (cap ${CAP})`);
  return {
    op,
    concurrency,
    service,
    raw,
    ratio,
    ratioBasis: 'throughput',
    target: `≥ ${TARGET_RATIO}× raw rps`,
    pass: clean(service, raw) && ratio >= TARGET_RATIO,
    notes,
  };
}

/** A conversation of user 0 already at its cap, so every insert also deletes one row. */
async function hotConversation(ctx: BenchContext): Promise<Target> {
  const target = { conversationId: seededUuid('hot-conversation'), messageId: seededUuid('hot-message'), userIndex: 0 };
  const userId = ctx.data.userIds[0];
  await ctx.raw.query('insert into conversations (team_id, id, user_id, space_id) values ($4, $1, $2, $3)', [
    target.conversationId,
    userId,
    ctx.data.spaceId,
    ctx.data.teamId,
  ]);
  await ctx.raw.query(`insert into messages (team_id, id, conversation_id, user_id) values ($4, $1, $2, $3)`, [
    target.messageId,
    target.conversationId,
    userId,
    ctx.data.teamId,
  ]);
  await ctx.raw.query(
    `insert into message_tool_results (id, user_id, message_id, conversation_id, tool_name, tool_input, tool_output, created_at, tool_use_id, mem_id, size_chars,
                                       summary_oneliner, stub, size_tokens, team_id, space_generation)
     select gen_random_uuid(), $1, $2, $3, 'query_site_data', '{"target":"recent_members"}', '{"members":[]}',
            now() - (${CAP} - n) * interval '1 second', 'toolu_hot_' || n,
            'mem_' || translate(substr(md5('hot:' || n), 1, 16), '0189', 'wxyz'), 14, '1 key: members[0]', '[recall-ledger tool_memory v2]', 5,
            $4, 1
       from generate_series(1, ${CAP}) n`,
    [userId, target.messageId, target.conversationId, ctx.data.teamId],
  );
  return target;
}

async function countRows(ctx: BenchContext, conversationId: string): Promise<number> {
  const result = await ctx.raw.query<{ n: string }>('select count(*) as n from message_tool_results where conversation_id = $1', [
    conversationId,
  ]);
  return Number(result.rows[0].n);
}
