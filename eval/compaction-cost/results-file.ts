import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConcreteFormat } from '../../src/compaction/history/history.types';
import { type RunResult, TABLE_END, TABLE_START } from './report';
import { STRATEGIES } from './strategies';

/** The document the eval writes its figures into, and the results it wrote them from. */
export const COST_DOC = join(__dirname, '..', '..', 'docs', 'compaction-cost.md');
export const COST_RESULTS = join(__dirname, 'results.json');

/** A run as stored: its strategy by key (its label and settings are the code's). */
type StoredRun = Omit<RunResult, 'strategy'> & { strategy: string };

interface StoredResults {
  formats: ConcreteFormat[];
  runs: StoredRun[];
}

/** The runs of a complete eval as the text of the results file, so the document can be checked against them. */
export function resultsText(formats: readonly ConcreteFormat[], results: readonly RunResult[]): string {
  const runs = results.map(({ strategy, ...run }) => ({ ...run, strategy: strategy.key }));
  return `${JSON.stringify({ formats: [...formats], runs } satisfies StoredResults, null, 2)}\n`;
}

export function loadResults(path: string): { formats: ConcreteFormat[]; results: RunResult[] } {
  const stored = JSON.parse(readFileSync(path, 'utf8')) as StoredResults;
  const results = stored.runs.map((run) => {
    const strategy = STRATEGIES.find((s) => s.key === run.strategy);
    if (!strategy) throw new Error(`${path}: strategy ${run.strategy} is not in strategies.ts: run npm run eval:compaction again`);
    return { ...run, strategy };
  });
  return { formats: stored.formats, results };
}

/**
 * The generated section of `doc`, as text to compare: table cells trimmed and rules shortened, so
 * that the padding `npm run lint:format` gives the tables does not count.
 */
export function comparableSection(doc: string): string[] {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the document has no ${TABLE_START} … ${TABLE_END} markers`);
  return comparableLines(doc.slice(start + TABLE_START.length, end));
}

/** `text` line by line, as comparableSection compares it. */
export function comparableLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) =>
      line.startsWith('|')
        ? line
            .split('|')
            .map((cell) => cell.trim().replace(/^(:?)-+(:?)$/, '$1---$2'))
            .join('|')
        : line,
    );
}
