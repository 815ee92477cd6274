import { readFileSync } from 'node:fs';
import { reportSection } from '../report';
import { COST_DOC, COST_RESULTS, comparableLines, comparableSection, loadResults } from '../results-file';

describe('docs/compaction-cost.md (R-LG-3)', () => {
  it('R-LG-3 every table in the document is the one the eval wrote from its checked-in results (eval/compaction-cost/results.json)', () => {
    const { formats, results } = loadResults(COST_RESULTS);
    // The section rebuilt from the results: any figure edited by hand, or results from another run, differ.
    expect(comparableSection(readFileSync(COST_DOC, 'utf8'))).toEqual(comparableLines(reportSection(results, formats)));
  });

  it('R-LG-3 the prose outside the generated section copies no figure of a run: no dollars, multiples or token counts', () => {
    const doc = readFileSync(COST_DOC, 'utf8');
    const prose = doc.replace(/<!-- compaction-cost:table:start -->[\s\S]*<!-- compaction-cost:table:end -->/, '');
    // Prices per million tokens are the price model's inputs (pricing.ts), not results.
    const figures = prose.match(
      /\$\d+(\.\d+)?\b(?! per million)|\b\d+(\.\d+)?×|\b\d+(\.\d+)?[kM] tokens|\b\d+ breaks|\b\d+(–\d+)?% (less|below|of calls)/g,
    );
    expect(figures).toBeNull();
  });
});
