import type { ConcreteFormat } from '../../src/compaction/history/history.types';
import { outputCost, type RunCost } from './pricing';
import { BASELINES, REFERENCE_FORMAT, type Strategy } from './strategies';

/** One strategy replayed in one format, priced. */
export interface RunResult extends RunCost {
  format: ConcreteFormat;
  strategy: Strategy;
  recallCalls: number;
  recallAnswerTokens: number;
  outputTokens: number;
}

export const TABLE_START = '<!-- compaction-cost:table:start -->';
export const TABLE_END = '<!-- compaction-cost:table:end -->';

const thousands = (n: number) => `${(n / 1000).toFixed(n >= 10_000_000 ? 0 : 1)}k`;
const millions = (n: number) => `${(n / 1_000_000).toFixed(2)}M`;
const dollars = (n: number) => `$${n.toFixed(2)}`;
const ratio = (n: number) => `${n.toFixed(2)}×`;

function runOf(results: readonly RunResult[], format: ConcreteFormat, key: string): RunResult | undefined {
  return results.find((r) => r.format === format && r.strategy.key === key);
}

function baseline(results: readonly RunResult[], format: ConcreteFormat, key: string): RunResult {
  const found = runOf(results, format, key);
  if (!found) throw new Error(`no ${key} run for ${format}`);
  return found;
}

/** The run's cost over the baseline's, in the same format. */
function costRatio(results: readonly RunResult[], run: RunResult, key: string): number {
  return run.inputCost / baseline(results, run.format, key).inputCost;
}

export interface RankedStrategy {
  strategy: Strategy;
  /** Mean cost ratios over the formats the strategy was replayed in. */
  vsNone: number;
  vsEveryCall: number;
  formats: number;
}

/** The strategies, cheapest first in the reference format (by mean ratio to none when it was not replayed there). */
export function ranked(results: readonly RunResult[]): RankedStrategy[] {
  const keys = [...new Set(results.map((r) => r.strategy.key))];
  const order = (row: RankedStrategy) => runOf(results, REFERENCE_FORMAT, row.strategy.key)?.inputCost ?? Infinity;
  return keys
    .map((key) => {
      const runs = results.filter((r) => r.strategy.key === key);
      const mean = (of: (r: RunResult) => number) => runs.reduce((sum, r) => sum + of(r), 0) / runs.length;
      return {
        strategy: runs[0].strategy,
        vsNone: mean((r) => costRatio(results, r, BASELINES.none)),
        vsEveryCall: mean((r) => costRatio(results, r, BASELINES.everyCall)),
        formats: runs.length,
      };
    })
    .sort((a, b) => order(a) - order(b) || a.vsNone - b.vsNone);
}

/** One table, strategies by formats: the input cost of each ("—" where not replayed), and the mean ratios. */
function summaryTable(results: readonly RunResult[], formats: readonly ConcreteFormat[]): string {
  const lines = [
    `| strategy | ${formats.join(' | ')} | × none | × every call |`,
    `| --- | ${formats.map(() => '---:').join(' | ')} | ---: | ---: |`,
  ];
  for (const row of ranked(results)) {
    const costs = formats.map((format) => {
      const run = runOf(results, format, row.strategy.key);
      return run ? dollars(run.inputCost) : '—';
    });
    lines.push(`| ${row.strategy.label} | ${costs.join(' | ')} | ${ratio(row.vsNone)} | ${ratio(row.vsEveryCall)} |`);
  }
  return lines.join('\n');
}

/** Every figure of each strategy replayed in one format. */
export function formatTable(results: readonly RunResult[], format: ConcreteFormat): string {
  const lines = [
    '| strategy | calls | input tokens | cache reads | cache writes | breaks | largest request | recalls | cost | × none | × every call |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { strategy } of ranked(results)) {
    const r = runOf(results, format, strategy.key);
    if (!r) continue;
    lines.push(
      `| ${strategy.label} | ${r.calls} | ${millions(r.inputTokens)} | ${millions(r.cacheReadTokens)} | ${millions(r.cacheWriteTokens)} | ` +
        `${r.cacheBreaks} | ${thousands(r.maxInputTokens)} | ${r.recallCalls} | ${dollars(r.inputCost)} | ` +
        `${ratio(costRatio(results, r, BASELINES.none))} | ${ratio(costRatio(results, r, BASELINES.everyCall))} |`,
    );
  }
  return lines.join('\n');
}

/** The cheapest strategy among those replayed in every format, by mean ratio to none. */
export function cheapestEverywhere(results: readonly RunResult[], formats: readonly ConcreteFormat[]): RankedStrategy {
  const everywhere = ranked(results).filter((row) => row.formats === formats.length);
  return everywhere.reduce((best, row) => (row.vsNone < best.vsNone ? row : best));
}

/** The whole generated section: the summary, then one table per format. */
export function reportSection(results: readonly RunResult[], formats: readonly ConcreteFormat[]): string {
  const none = baseline(results, REFERENCE_FORMAT, BASELINES.none);
  const best = cheapestEverywhere(results, formats);
  const percent = (r: number) => `${Math.round((1 - r) * 100)}%`;
  const parts = [
    `Input cost of the whole trace (cache reads and writes priced), cheapest first in ${REFERENCE_FORMAT}, and the mean ratio to "none" and to ` +
      `"every call" over the formats replayed ("—": replayed in ${REFERENCE_FORMAT} only). The model's own output ` +
      `(${thousands(none.outputTokens)} tokens, ${dollars(outputCost(none.outputTokens))}) is left out: it is the same under every strategy but for the few tokens of each recall call.`,
    '',
    summaryTable(results, formats),
    '',
    `Cheapest of those replayed in every format: **${best.strategy.label}**, ${percent(best.vsNone)} below "none" and ` +
      `${percent(best.vsEveryCall)} below "every call" (mean over the formats).`,
  ];
  for (const format of formats) parts.push('', `#### ${format}`, '', formatTable(results, format));
  return parts.join('\n');
}

/** `doc` with the text between the markers replaced by `section`. */
export function withSection(doc: string, section: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the document has no ${TABLE_START} … ${TABLE_END} markers`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${section}\n${doc.slice(end)}`;
}
