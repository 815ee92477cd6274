/**
 * Declarative per-tool summarizers (R-RC-3). A rule applies to a tool name when every `when`
 * value equals the same top-level key of the tool input; its parts render in order, joined
 * with ", ". A part that cannot be read from the output makes the rule fail (the next
 * matching rule, then the generic summarizer, is used) unless the part is `optional`.
 *
 * Paths are dot-separated keys from the root of the tool output; '' is the root itself.
 * Each part reads one path and scans the one array there at most once; a rule stops at its first
 * required part that finds nothing, and all the rules tried for one summary share a budget of
 * row visits (SUMMARY_RULE_ROW_BUDGET), past which the generic summarizer answers.
 *
 * A tool's rules are written as one JSON document, `{ "version": 1, "rules": [...] }`: the
 * built-ins (`built-in-summary-rules.ts`) and a team's own (R-RC-3, `setToolSummaryRule`), which
 * replace the built-ins for that tool. Both pass the same validator (`summary-rule-document.ts`).
 */
export type SummaryPart =
  /** `<n> <label>`: the length of the array at `path`. */
  | (PartBase<'count'> & { readonly label: string; readonly singular?: string })
  /** `<label> YYYY-MM-DD`: the newest date in `field` across the rows at `path`. */
  | (PartBase<'maxDate'> & { readonly field: string; readonly label: string })
  /** `<name> <value> <suffix>`: the row at `path` with the largest numeric `orderBy`. */
  | (PartBase<'topBy'> & { readonly orderBy: string; readonly nameField: string; readonly suffix: string })
  /** `<n>-<unit> <label>`: the length of the series at `path`, its unit read at `unitPath`. */
  | (PartBase<'seriesLength'> & { readonly unitPath: string; readonly label: string })
  /** `+12%`: the change of `field` from the first to the last row at `path`, rounded, signed. */
  | (PartBase<'percentChange'> & { readonly field: string });

interface PartBase<K extends string> {
  readonly kind: K;
  readonly path: string;
  /** Leave the part out, instead of failing the rule, when the output lacks it. */
  readonly optional?: boolean;
}

export type RuleCondition = Readonly<Record<string, string | number | boolean | null>>;

/** One rule of a tool's document. */
export interface SummaryRule {
  /** Top-level tool-input values that must match; omitted means any input. */
  readonly when?: RuleCondition;
  readonly parts: readonly SummaryPart[];
}

/** A rule with the tool it is for, as a list of several tools' rules names it. */
export interface NamedSummaryRule extends SummaryRule {
  readonly tool: string;
}

/** A tool's rules as stored and exchanged: a versioned JSON document. */
export interface SummaryRuleDocument {
  readonly version: 1;
  readonly rules: readonly SummaryRule[];
}

/** Rules by tool name, in declaration order. */
export type SummaryRuleRegistry = ReadonlyMap<string, readonly SummaryRule[]>;
