import fc from 'fast-check';
import { boundLine } from '../../../common/text/text-bounds';
import { summarizeGeneric } from '../generic-summarizer';
import { applicableRules, ruleRowVisitsAtMost, SUMMARY_MAX_CHARS, summarizeOutput, summarizeToolResult } from '../summarize-tool-result';
import { buildSummaryRuleRegistry } from '../built-in-summary-rules';
import { checkSummaryRuleDocument, SUMMARY_RULE_ROW_BUDGET } from '../summary-rule-document';
import type { SummaryPart, SummaryRule } from '../summary-rule.types';
import { summarizeByRuleBefore } from './summarizer-before-budget';

/** `count` rows whose `at` is a day of 2026, the last one the newest. */
function datedRows(count: number): { at: string; v: number; name: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
    v: i,
    name: `n${i}`,
  }));
}

const NEWEST_OF_1000 = '2026-02-11';
const maxDate = (field: string): SummaryPart => ({ kind: 'maxDate', path: 'rows', field, label: 'latest' });
const COUNT: SummaryPart = { kind: 'count', path: 'rows', label: 'rows' };

/** The bomb: eight rules of seven maxDate parts and a count part that never holds, inside the document limits. */
const BOMB_DOCUMENT = {
  version: 1,
  rules: Array.from({ length: 8 }, () => ({
    parts: [...Array.from({ length: 7 }, () => maxDate('at')), { kind: 'count', path: 'missing', label: 'n' }],
  })),
};

describe('summary rules within a row budget (R-RC-3, R-TN-10)', () => {
  const rows = { rows: datedRows(1_000) };

  it('R-RC-3 R-TN-10 a rule stops at its first required part that finds nothing: the parts after it cost nothing', () => {
    // The first rule's first part finds no `gone` date; its second part would scan the 1,000 rows again.
    const rules: SummaryRule[] = [{ parts: [maxDate('gone'), maxDate('at')] }, { parts: [COUNT] }];
    // The first part's 1,000 rows and the count's 1 fit; with the second part's 1,000 they would not.
    expect(summarizeOutput(rules, rows, 1_001)).toEqual({ text: '1000 rows', overBudget: false });
    expect(summarizeOutput(rules, rows, 1_000)).toEqual({ text: summarizeGeneric(rows), overBudget: true });
    // An optional part that finds nothing is left out, and the rule goes on.
    const optional: SummaryRule[] = [{ parts: [{ ...maxDate('gone'), optional: true }, maxDate('at')] }];
    expect(summarizeOutput(optional, rows, 2_000)).toEqual({ text: `latest ${NEWEST_OF_1000}`, overBudget: false });
  });

  it('R-RC-3 R-TN-10 rules past the budget give the generic summary, however the rows are split between parts and rules', () => {
    const rules: SummaryRule[] = [
      { parts: [COUNT, maxDate('gone')] },
      { parts: [maxDate('at'), { kind: 'topBy', path: 'rows', orderBy: 'v', nameField: 'name', suffix: 'top' }] },
    ];
    // count 1 + maxDate 1,000 (fails), then maxDate 1,000 + topBy 1,000: 3,001 row visits.
    expect(summarizeOutput(rules, rows, 3_001)).toEqual({ text: `latest ${NEWEST_OF_1000}, n999 999 top`, overBudget: false });
    expect(summarizeOutput(rules, rows, 3_000)).toEqual({ text: summarizeGeneric(rows), overBudget: true });
    expect(ruleRowVisitsAtMost(rules, rows)).toBe(3_001);
    // Parts that read a length, a unit or two rows cost one visit each, whatever the rows.
    const cheap: SummaryRule[] = [{ parts: [COUNT, { kind: 'percentChange', path: 'rows', field: 'at', optional: true }] }];
    expect(summarizeOutput(cheap, rows, 2)).toEqual({ text: '1000 rows', overBudget: false });
  });

  it("R-RC-3 R-TN-10 the issue's bomb over 46,000 rows is cut at the budget and gives the generic summary", () => {
    const checked = checkSummaryRuleDocument(BOMB_DOCUMENT);
    if (!checked.ok) throw new Error(checked.message);
    const output = { rows: datedRows(46_000) };
    // Every part evaluated, it would be 8 × 7 scans of 46,000 rows: 2.6 million visits.
    expect(ruleRowVisitsAtMost(checked.document.rules, output)).toBe(8 * (7 * 46_000 + 1));
    expect(summarizeOutput(checked.document.rules, output)).toEqual({ text: summarizeGeneric(output), overBudget: true });
    expect(summarizeOutput(checked.document.rules, output).text).toBe('1 key: rows[46000]; newest 2026-04-15');
  });

  it('R-RC-3 within the budget every rule gives the summary it gave before the budget', () => {
    const path = fc.constantFrom('rows', 'data.rows', '', 'unit', 'missing');
    const field = fc.constantFrom('at', 'created_at', 'v', 'name', 'gone');
    const text = fc.constantFrom('rows', 'latest', 'top', 'trend');
    const part: fc.Arbitrary<SummaryPart> = fc.oneof(
      fc.record({ kind: fc.constant('count'), path, label: text, singular: fc.option(text, { nil: undefined }) }),
      fc.record({ kind: fc.constant('maxDate'), path, field, label: text }),
      fc.record({ kind: fc.constant('topBy'), path, orderBy: field, nameField: field, suffix: text }),
      fc.record({ kind: fc.constant('seriesLength'), path, unitPath: path, label: text }),
      fc.record({ kind: fc.constant('percentChange'), path, field }),
    );
    const optionalPart = fc.tuple(part, fc.boolean()).map(([p, optional]): SummaryPart => (optional ? { ...p, optional } : p));
    const rule = fc.record({
      when: fc.option(fc.dictionary(fc.constantFrom('target', 'scope'), fc.constantFrom('a', 'b')), { nil: undefined }),
      parts: fc.array(optionalPart, { minLength: 1, maxLength: 8 }),
    });
    const value = fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.integer({ min: 1_000_000_000, max: 1_999_999_999 }),
      fc.double(),
      fc.string({ maxLength: 12 }),
      fc.constant(null),
    );
    const row = fc.oneof(fc.dictionary(field, value), value);
    const rowList = fc.array(row, { maxLength: 30 });
    const output = fc.record(
      { rows: rowList, data: fc.record({ rows: rowList }), unit: fc.oneof(fc.string({ maxLength: 20 }), rowList) },
      { requiredKeys: [] },
    );
    const input = fc.oneof(fc.record({ target: fc.constantFrom('a', 'b') }), fc.constant({}), fc.constant(null));
    fc.assert(
      fc.property(fc.array(rule, { minLength: 1, maxLength: 8 }), input, output, fc.nat(400), (rules, toolInput, toolOutput, budget) => {
        const before = boundLine(summarizeByRuleBefore(rules, toolInput, toolOutput) ?? summarizeGeneric(toolOutput), SUMMARY_MAX_CHARS);
        const registry = buildSummaryRuleRegistry(rules.map((r) => ({ tool: 't', ...r })));
        // With the default budget these outputs are always within it; a small budget cuts some, and those alone differ.
        expect(summarizeToolResult('t', toolInput, toolOutput, registry)).toBe(before || 'no data');
        const budgeted = summarizeOutput(applicableRules(registry, 't', toolInput), toolOutput, budget);
        if (!budgeted.overBudget) expect(budgeted.text).toBe(before || 'no data');
        else expect(budgeted.text).toBe(boundLine(summarizeGeneric(toolOutput), SUMMARY_MAX_CHARS) || 'no data');
      }),
      { numRuns: 2_000 },
    );
  });

  it('R-TN-10 the budget allows a rule of eight scanning parts over 12,500 rows', () => {
    expect(SUMMARY_RULE_ROW_BUDGET).toBe(100_000);
    const rules: SummaryRule[] = [{ parts: Array.from({ length: 8 }, () => maxDate('at')) }];
    const within = summarizeOutput(rules, { rows: datedRows(12_500) });
    expect(within).toEqual({ text: expect.stringMatching(/^latest 2027-06-05, latest 2027-06-05, /) as unknown, overBudget: false });
    expect(summarizeOutput(rules, { rows: datedRows(12_501) }).overBudget).toBe(true);
  });
});
