import { Counter, Registry } from 'prom-client';
import { AppError, ErrorCode } from '../../../common/errors/app-error';
import { OFF_THREAD_FROM_CHARS } from '../../../common/text/token-counter';
import type { AppConfig } from '../../../config/app-config';
import { testConfig, workerPoolMetricsFor } from '../../../../test/support/tool-results-service';
import { checkSummaryRuleDocument } from '../../summarizer/summary-rule-document';
import type { SummaryRule } from '../../summarizer/summary-rule.types';
import { ToolResultMetrics } from '../../tool-results.metrics';
import { handleFields } from '../handle-fields';
import { stubSourceOf } from '../build-handle';
import { type FieldsSource, HandleFieldsPool, IN_PLACE_RULE_ROW_VISITS, STUBS_IN_PLACE } from '../handle-fields-pool';
import { renderStub, STUB_MAX_TOKENS } from '../stub';
import { countTokens } from '../../../common/text/tokenizer';

/** `{ rows: [{ at, v }] }` with `count` rows, as JSON text. */
function rowsText(count: number): string {
  return JSON.stringify({
    rows: Array.from({ length: count }, (_, v) => ({ at: new Date(Date.UTC(2026, 0, 1) + v * 60_000).toISOString(), v })),
  });
}

function rules(document: unknown): SummaryRule[] {
  const checked = checkSummaryRuleDocument(document);
  if (!checked.ok) throw new Error(checked.message);
  return [...checked.document.rules];
}

/** The bomb: eight rules of seven maxDate parts and a count that never holds. */
const BOMB = rules({
  version: 1,
  rules: Array.from({ length: 8 }, () => ({
    parts: [
      ...Array.from({ length: 7 }, () => ({ kind: 'maxDate', path: 'rows', field: 'at', label: 'at' })),
      { kind: 'count', path: 'x', label: 'n' },
    ],
  })),
});
const LATEST = rules({ version: 1, rules: [{ parts: [{ kind: 'maxDate', path: 'rows', field: 'at', label: 'latest' }] }] });

/** A JSON output as the write path holds it: parsed, and the text it serialized. */
function source(text: string, sourceRules: SummaryRule[] = []): FieldsSource {
  return { output: JSON.parse(text) as unknown, text, isText: false, rules: sourceRules };
}

const inPlaceFields = (s: FieldsSource) => handleFields(s.output, s, s.rules);

/** How many times a 1 ms ticker fired while `work` ran: none when it ran on the event loop from start to end. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  const ticker = setInterval(() => (turns += 1), 1);
  try {
    return { value: await work(), turns };
  } finally {
    clearInterval(ticker);
  }
}

describe('HandleFieldsPool: the handle fields of large payloads off the event loop (R-TN-10)', () => {
  const pools: HandleFieldsPool[] = [];
  let fallbacks: Counter<'reason'>;
  const poolOf = (config: AppConfig = testConfig()): HandleFieldsPool => {
    const registers = [new Registry()];
    fallbacks = new Counter({ name: 'fallbacks', help: 'f', labelNames: ['reason'], registers });
    const metrics = new ToolResultMetrics(
      new Counter({ name: 'persisted', help: 'p', labelNames: ['tool_name'], registers }),
      fallbacks,
      config,
    );
    const pool = new HandleFieldsPool(config, workerPoolMetricsFor(), metrics);
    pools.push(pool);
    return pool;
  };
  const overBudgetCount = async () => (await fallbacks.get()).values.find((v) => v.labels.reason === 'over_budget')?.value ?? 0;
  afterAll(() => Promise.all(pools.map((pool) => pool.onModuleDestroy())));

  it("R-TN-10 R-RC-3 a 2 MB payload's fields, its team's rule bomb included, are read on a worker thread and are the fields read in place", async () => {
    const pool = poolOf();
    const bomb = source(rowsText(46_000), BOMB);
    const { value, turns } = await turnsDuring(() => pool.fieldsOf('team-a', [bomb]));
    // Read in place, the whole of it would run before the first tick could fire.
    expect(turns).toBeGreaterThan(0);
    expect(value).toEqual([inPlaceFields(bomb)]);
    expect(value[0]).toMatchObject({ summaryOneliner: '1 key: rows[46000]; newest 2026-01-03', summaryOverBudget: true });
  });

  it('R-TN-10 a small batch is read in place unless its rules may scan more than 4,096 rows; either way the same fields', async () => {
    const pool = poolOf();
    const small = [source(rowsText(200), LATEST), { output: 'done\nok', text: 'done\nok', isText: true, rules: [] }];
    const inPlace = await turnsDuring(() => pool.fieldsOf('team-a', small));
    expect(inPlace.turns).toBe(0);
    expect(inPlace.value).toEqual(small.map(inPlaceFields));
    expect(inPlace.value.map((f) => f.summaryOneliner)).toEqual(['latest 2026-01-01', 'done ok']);

    // Under 32,768 characters, but eight rules of eight scans of its 400 rows: 25,600 row visits.
    const costly = source(rowsText(400), BOMB);
    expect(costly.text.length).toBeLessThan(OFF_THREAD_FROM_CHARS);
    expect(8 * 7 * 400).toBeGreaterThan(IN_PLACE_RULE_ROW_VISITS);
    const offThread = await turnsDuring(() => pool.fieldsOf('team-a', [costly]));
    expect(offThread.turns).toBeGreaterThan(0);
    expect(offThread.value).toEqual([inPlaceFields(costly)]);
  });

  it('R-TN-10 R-RC-3 a summary left to the generic summarizer by the row budget is counted, reason over_budget; one within it is not', async () => {
    const pool = poolOf();
    // 1,000 rows: every rule runs its seven scans and fails at its count, 56,008 row visits.
    expect(await pool.fieldsOf('team-a', [source(rowsText(1_000), BOMB)])).toMatchObject([{ summaryOverBudget: false }]);
    expect(await overBudgetCount()).toBe(0);
    // 1,800 rows: eight rules of seven scans pass 100,000 row visits at the last rule.
    const [fields] = await pool.fieldsOf('team-a', [source(rowsText(1_800), BOMB), source(rowsText(10), LATEST)]);
    expect(fields.summaryOverBudget).toBe(true);
    expect(await overBudgetCount()).toBe(1);
  });

  it("R-TN-10 team A's task starts before team B's later-queued ones", async () => {
    const pool = poolOf(testConfig({ HANDLE_THREADS: '1' }));
    const settled: string[] = [];
    const large = source(rowsText(2_000), BOMB);
    const flood = [1, 2, 3].map((n) => pool.fieldsOf('team-b', [large]).then(() => settled.push(`b${n}`)));
    await pool.fieldsOf('team-a', [large]);
    settled.push('a');
    await Promise.all(flood);
    // b1 held the thread when team A asked; b2 and b3 had queued first, and waited.
    expect(settled).toEqual(['b1', 'a', 'b2', 'b3']);
  });

  it('R-TN-10 R-LG-1 the stubs of a batch are rendered on a thread, in order, and are the stubs rendered in place; two or fewer in place', async () => {
    const pool = poolOf();
    const options = { answerMaxTokens: 8_000 };
    // Long fields in every script: each stub is fitted to its budget by shrinking them.
    const handles = Array.from({ length: 70 }, (_, i) =>
      stubSourceOf({
        memId: `mem_${String(i).padStart(26, '0')}`,
        toolName: `search_${'文'.repeat(i % 40)}`,
        toolUseId: `call_${i}`,
        sizeChars: 5_000,
        toolInput: { q: i },
        toolOutput: { rows: Array.from({ length: 30 }, (_, v) => ({ [`field_${v}_${'ß'.repeat(i % 7)}`]: `value ${v} 😀 ${i}` })) },
      }),
    );
    const offThread = await turnsDuring(() => pool.stubsOf('team-a', handles, options));
    expect(offThread.turns).toBeGreaterThan(0);
    expect(offThread.value).toEqual(handles.map((handle) => renderStub(handle, options)));
    for (const stub of offThread.value) expect(countTokens(stub)).toBeLessThanOrEqual(STUB_MAX_TOKENS);

    expect(STUBS_IN_PLACE).toBe(2);
    const inPlace = await turnsDuring(() => pool.stubsOf('team-a', handles.slice(0, 2), options));
    expect(inPlace.turns).toBe(0);
    expect(inPlace.value).toEqual(offThread.value.slice(0, 2));
  });

  it('R-TN-10 past its threads and queue the pool answers RATE_LIMITED instead of waiting without bound', async () => {
    const pool = poolOf(testConfig({ HANDLE_THREADS: '1', HANDLE_QUEUE_MAX: '1' }));
    const large = source(rowsText(2_000), BOMB);
    // One team may hold half of threads plus queue: two teams fill both.
    const running = [pool.fieldsOf('team-a', [large]), pool.fieldsOf('team-b', [large])];
    const refused = await pool.fieldsOf('team-c', [large]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: ErrorCode.RATE_LIMITED, details: { limit: 'HANDLE_QUEUE_MAX', retryAfterSeconds: 1 } });
    await expect(Promise.all(running)).resolves.toEqual([[inPlaceFields(large)], [inPlaceFields(large)]]);
  });
});
