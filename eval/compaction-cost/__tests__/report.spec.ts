import { type ConcreteFormat, MessageFormat } from '../../../src/compaction/history/history.types';
import { priceRun } from '../pricing';
import { cheapestEverywhere, formatTable, ranked, reportSection, type RunResult, TABLE_END, TABLE_START, withSection } from '../report';
import { STRATEGIES } from '../strategies';

const strategy = (key: string) => STRATEGIES.find((s) => s.key === key)!;

function run(format: ConcreteFormat, key: string, writes: number): RunResult {
  const cost = priceRun([
    { inputTokens: 100_000, sharedTokens: 0, cacheBreak: false },
    { inputTokens: 100_000 + writes, sharedTokens: 100_000, cacheBreak: false },
  ]);
  return { ...cost, format, strategy: strategy(key), recallCalls: 0, recallAnswerTokens: 0, outputTokens: 1000 };
}

const results = ([MessageFormat.ANTHROPIC, MessageFormat.GEMINI] as const).flatMap((format) => [
  run(format, 'none', 300_000),
  run(format, 'every-call', 100_000),
  run(format, 'view-60k-20k-inputs', 50_000),
]);
results.push(run(MessageFormat.ANTHROPIC, 'view-100k-40k', 20_000));

describe('cost eval report (R-LG-3)', () => {
  it('R-LG-3 ranks by cost in the reference format and gives each ratio to none and to every call', () => {
    const rows = ranked(results);
    expect(rows.map((r) => r.strategy.key)).toEqual(['view-100k-40k', 'view-60k-20k-inputs', 'every-call', 'none']);
    const none = results[0].inputCost;
    expect(rows[1].vsNone).toBeCloseTo(results[2].inputCost / none, 12);
    expect(rows[1].vsEveryCall).toBeCloseTo(results[2].inputCost / results[1].inputCost, 12);
    expect(rows[0].formats).toBe(1);
    // The cheapest of those replayed in every format, not the one replayed in one format only.
    expect(cheapestEverywhere(results, [MessageFormat.ANTHROPIC, MessageFormat.GEMINI]).strategy.key).toBe('view-60k-20k-inputs');
  });

  it('R-LG-3 a table per format lists what was replayed in it; the summary marks the rest "—"', () => {
    expect(formatTable(results, MessageFormat.GEMINI)).not.toContain('trigger 100k');
    const section = reportSection(results, [MessageFormat.ANTHROPIC, MessageFormat.GEMINI]);
    expect(section).toMatch(/\| view, trigger 100k → target 40k \| \$\d+\.\d\d \| — \|/);
    expect(section).toContain('#### GEMINI');
  });

  it('R-LG-3 the generated section replaces what stands between the markers, and nothing else', () => {
    const doc = `# Title\n\nprose\n${TABLE_START}\nold table\n${TABLE_END}\nmore prose\n`;
    const once = withSection(doc, 'new table');
    expect(once).toBe(`# Title\n\nprose\n${TABLE_START}\nnew table\n${TABLE_END}\nmore prose\n`);
    expect(withSection(once, 'new table')).toBe(once);
    expect(() => withSection('# no markers', 'x')).toThrow(/markers/);
  });
});
