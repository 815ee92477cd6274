import { readFileSync, writeFileSync } from 'node:fs';
import { format as prettierFormat, resolveConfig } from 'prettier';
import type { ConcreteFormat } from '../../src/compaction/history/history.types';
import { ALL_FORMATS } from '../../test/fixtures/history-formats.fixture';
import { runToCompletion, type Teardown } from '../../bench/harness';
import { startLedgerService } from './ledger-service';
import { RequestMeter } from './prompt-cache';
import { priceRun } from './pricing';
import { replay } from './replay';
import { reportSection, type RunResult, withSection } from './report';
import { COST_DOC, COST_RESULTS, resultsText } from './results-file';
import { REFERENCE_FORMAT, STRATEGIES, type Strategy } from './strategies';
import { buildCostTrace, COST_TRACE_SEED, type TraceStep } from './trace';

/*
 * `npm run eval:compaction` (R-LG-3, docs/compaction-cost.md): the seeded agent trace replayed in
 * every history format under every strategy, each call's request built by the real service's
 * compactMessages (its own process, a fresh embedded PostgreSQL), measured for a prompt cache and
 * priced. Prints the tables and writes them into docs/compaction-cost.md between its markers, and
 * the runs they come from into eval/compaction-cost/results.json (a spec checks the two agree).
 * Environment: COST_EVAL_FORMATS (all), COST_EVAL_STRATEGIES (all; keys, comma-separated),
 * COST_EVAL_GRID (all: every strategy in every format, two to three times as long; printed only),
 * COST_EVAL_CONCURRENCY (3 runs at a time), COST_EVAL_WRITE_DOC (1; 0 prints only).
 */

const TIME_LIMIT_MS = 20 * 60_000;

function listFromEnv<T>(name: string, all: readonly T[], keyOf: (item: T) => string): T[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return [...all];
  const keys = raw.split(',').map((key) => key.trim());
  const unknown = keys.filter((key) => !all.some((item) => keyOf(item) === key));
  if (unknown.length > 0) throw new Error(`${name}: unknown ${unknown.join(', ')}; known: ${all.map(keyOf).join(', ')}`);
  return all.filter((item) => keys.includes(keyOf(item)));
}

async function run(teardown: Teardown): Promise<boolean> {
  const started = performance.now();
  const formats = listFromEnv('COST_EVAL_FORMATS', ALL_FORMATS, (format) => format);
  const strategies = listFromEnv('COST_EVAL_STRATEGIES', STRATEGIES, (strategy) => strategy.key);
  const concurrency = Math.max(1, Number(process.env.COST_EVAL_CONCURRENCY ?? 3));
  const steps = buildCostTrace();
  console.log(`compaction cost eval: ${steps.length} trace steps, ${formats.length} formats × ${strategies.length} strategies`);
  const service = await startLedgerService(teardown);
  console.log(`service up in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The whole grid in the reference format, the strategies that matter in every format (COST_EVAL_GRID=all: everything everywhere).
  const everywhere = process.env.COST_EVAL_GRID === 'all';
  const jobs = formats.flatMap((format) =>
    strategies.filter((s) => everywhere || s.inEveryFormat || format === REFERENCE_FORMAT).map((strategy) => ({ format, strategy })),
  );
  const results: RunResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { format, strategy } = jobs[next++];
      results.push(await runOne(service, steps, format, strategy));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // In the jobs' order whatever order they finished in, so the tables are the same on every run.
  results.sort(
    (a, b) =>
      jobs.findIndex((j) => j.format === a.format && j.strategy === a.strategy) -
      jobs.findIndex((j) => j.format === b.format && j.strategy === b.strategy),
  );

  const section = reportSection(results, formats);
  console.log(`\n${section}\n`);
  const complete = formats.length === ALL_FORMATS.length && strategies.length === STRATEGIES.length && !everywhere;
  if (process.env.COST_EVAL_WRITE_DOC !== '0' && complete) {
    // Formatted as `npm run lint:format` checks it, so a fresh run leaves nothing to fix.
    const doc = withSection(readFileSync(COST_DOC, 'utf8'), section);
    writeFileSync(COST_DOC, await prettierFormat(doc, { ...(await resolveConfig(COST_DOC)), filepath: COST_DOC }));
    const stored = resultsText(formats, results);
    writeFileSync(COST_RESULTS, await prettierFormat(stored, { ...(await resolveConfig(COST_RESULTS)), filepath: COST_RESULTS }));
    console.log(`written into ${COST_DOC} and ${COST_RESULTS}`);
  } else if (!complete) {
    console.log('not the default run (COST_EVAL_FORMATS, COST_EVAL_STRATEGIES or COST_EVAL_GRID): the document is left as it is');
  }
  console.log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return true;
}

async function runOne(
  service: Awaited<ReturnType<typeof startLedgerService>>,
  steps: readonly TraceStep[],
  format: ConcreteFormat,
  strategy: Strategy,
): Promise<RunResult> {
  const started = performance.now();
  const port = await service.portFor(`${format} ${strategy.key}`);
  const outcome = await replay(steps, format, strategy, port, new RequestMeter(COST_TRACE_SEED));
  const cost = priceRun(outcome.requests);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `${format} ${strategy.key}: ${cost.calls} calls, ${cost.inputTokens} input tokens, ${cost.cacheBreaks} breaks, ` +
      `$${cost.inputCost.toFixed(2)} (${seconds} s)`,
  );
  return {
    ...cost,
    format,
    strategy,
    recallCalls: outcome.recallCalls,
    recallAnswerTokens: outcome.recallAnswerTokens,
    outputTokens: outcome.outputTokens,
  };
}

void runToCompletion('compaction cost eval', TIME_LIMIT_MS, run, 'compaction cost eval failed');
