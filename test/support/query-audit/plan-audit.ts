/**
 * The query audit's rule (design of issue 36, what Citus's router planner needs), applied to one
 * statement's plan as auto_explain logs it (`log_format = json`, PostgreSQL 18):
 *
 * - every scan of a tenant table (any plan node with a `Relation Name` but ModifyTable, whose
 *   target rows are read by its child scans) has an equality on that relation's team column in
 *   its own conditions (`Index Cond`, `Recheck Cond` and its Bitmap Index Scans, `Filter`,
 *   `TID Cond`), to a parameter or a constant (`team_id = $1`, `team_id = '…'::uuid`);
 * - or it is joined on its team column to another tenant relation that has one (`Hash Cond`,
 *   `Merge Cond`, `Join Filter`, or a parameterised inner condition such as `team_id = c.team_id`),
 *   through any chain of such joins;
 * - so the statement as a whole has at least one team equality to a parameter or constant.
 *
 * Not counted: row-level security's `team_id = (InitPlan n).colm` (`$0` in PostgreSQL before
 * 16), any other sub-select, `team_id = ANY (…)` (several teams), an equality inside an OR, and
 * a team column under a cast (`(team_id)::text = $1`). PostgreSQL folds `c.team_id = m.team_id
 * and c.team_id = $1` into `team_id = $1` on both scans, so a well-written join shows up as
 * equalities to the parameter; a join PostgreSQL could not anchor shows up as a violation.
 *
 * Pure: no database, no files. The collector (`collector.ts`) feeds it the logged plans.
 */

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Alias?: string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** One auto_explain record (`log_format = json`), or an EXPLAIN (FORMAT JSON) plan with its text. */
export interface ExplainedStatement {
  'Query Text': string;
  Plan: PlanNode;
}

/** Tenant table → the column that holds its team (`team_id`; `id` for `teams`). */
export type TenantTables = Readonly<Record<string, string>>;

/** The tenant tables of the team-keyed schema (docs/design of issue 36). */
export const TENANT_TABLES: TenantTables = {
  teams: 'id',
  users: 'team_id',
  spaces: 'team_id',
  space_members: 'team_id',
  team_feature_flags: 'team_id',
  conversations: 'team_id',
  messages: 'team_id',
  message_tool_results: 'team_id',
  recall_events: 'team_id',
  feedback_events: 'team_id',
  tool_summary_rules: 'team_id',
  tool_compaction_policies: 'team_id',
  user_tombstones: 'team_id',
};

/** A scan of a tenant table that does not meet the rule. */
export interface ScanViolation {
  table: string;
  /** The relation's name in the plan (its alias, or the table's name). */
  alias: string;
  nodeType: string;
  reason: string;
}

/** The scheduler's team walk: the one place allowed to read tenant tables without a team. */
const EXEMPT_FUNCTION = 'tenancy_team_ids';

/**
 * A test that runs a statement without its team on purpose (the row-level security probes of
 * R-TN-8) marks it with this comment. Product SQL never carries it (the audit's spec checks).
 */
export const EXEMPT_MARKER = 'query-audit: exempt';

/**
 * Whether the statement is outside the audit: it runs inside `tenancy_team_ids()` (the error
 * context auto_explain logs with a nested statement names the function), it calls that function
 * (were it ever inlined), or a test marked it with EXEMPT_MARKER.
 */
export function isExempt(queryText: string, context?: string): boolean {
  if (queryText.includes(EXEMPT_MARKER)) return true;
  if (new RegExp(`\\b${EXEMPT_FUNCTION}\\s*\\(`).test(queryText)) return true;
  return context !== undefined && new RegExp(`(SQL function "${EXEMPT_FUNCTION}"|PL/pgSQL function ${EXEMPT_FUNCTION}\\()`).test(context);
}

/** The rule's violations in one statement's plan: none when every tenant scan is anchored. */
export function auditPlan(statement: ExplainedStatement, tenantTables: TenantTables = TENANT_TABLES): ScanViolation[] {
  const plan = statement.Plan;
  const aliases = new Map<string, string>(); // alias → tenant table
  const scans: { alias: string; table: string; nodeType: string }[] = [];
  const initPlanParams = new Set<string>();
  walk(plan, (node) => {
    const table = node['Relation Name'];
    if (table !== undefined && node.Alias !== undefined && Object.hasOwn(tenantTables, table)) {
      aliases.set(node.Alias, table);
      if (node['Node Type'] !== 'ModifyTable') scans.push({ alias: node.Alias, table, nodeType: node['Node Type'] });
    }
    // PostgreSQL before 16 names an init plan's outputs `$n`, like parameters: "InitPlan 1 (returns $0)".
    for (const param of /\(returns ([^)]*)\)/.exec(node['Subplan Name'] ?? '')?.[1].split(',') ?? []) initPlanParams.add(param.trim());
  });
  if (scans.length === 0) return [];

  const facts = new TeamFacts();
  const teamColumnOf = (alias: string | undefined): string | undefined => {
    const table = alias === undefined ? undefined : aliases.get(alias);
    return table === undefined ? undefined : tenantTables[table];
  };
  collectConditions(plan, undefined, (condition, owner) => {
    for (const conjunct of conjuncts(condition)) {
      // `x = ANY ('{}')` holds for no row: PostgreSQL then drops the scan's other conditions as
      // implied (the team's among them), and the scan reads nothing, on any team.
      if (owner !== undefined && EMPTY_ANY.test(conjunct)) facts.anchor(owner);
      const equality = splitEquality(conjunct);
      if (!equality) continue;
      const [left, right] = equality.map((side) => classify(side, owner, teamColumnOf, initPlanParams));
      for (const [team, other] of [
        [left, right],
        [right, left],
      ] as const) {
        if (team.kind !== 'team') continue;
        if (team.cast) facts.note(team.alias, 'cast');
        else if (other.kind === 'value') facts.anchor(team.alias);
        else if (other.kind === 'team' && !other.cast) facts.join(team.alias, other.alias);
        else if (other.kind === 'initPlan') facts.note(team.alias, 'initPlan');
        else if (other.kind === 'any') facts.note(team.alias, 'any');
      }
    }
  });

  const violations: ScanViolation[] = [];
  const seen = new Set<string>();
  for (const scan of scans) {
    if (seen.has(scan.alias) || facts.anchored(scan.alias)) continue;
    seen.add(scan.alias);
    violations.push({ ...scan, reason: facts.reason(scan.alias, tenantTables[scan.table]) });
  }
  return violations;
}

function walk(node: PlanNode, visit: (node: PlanNode) => void): void {
  visit(node);
  for (const child of node.Plans ?? []) walk(child, visit);
}

/** A scan's own conditions; a Bitmap Index Scan's belong to its heap scan unless under a BitmapOr. */
const SCAN_CONDITIONS = ['Index Cond', 'Recheck Cond', 'Filter', 'TID Cond'];
const JOIN_CONDITIONS = ['Hash Cond', 'Merge Cond', 'Join Filter'];

/**
 * Calls `found` with every condition of the plan and the alias its unqualified columns belong
 * to: EXPLAIN prints a scan's own columns without their relation's name.
 */
function collectConditions(
  node: PlanNode,
  bitmapOwner: string | undefined,
  found: (condition: string, owner: string | undefined) => void,
): void {
  const type = node['Node Type'];
  let owner = type === 'ModifyTable' ? undefined : node.Alias;
  let childBitmapOwner: string | undefined;
  if (type === 'Bitmap Heap Scan') childBitmapOwner = node.Alias;
  else if (type === 'BitmapAnd') childBitmapOwner = bitmapOwner;
  else if (type === 'Bitmap Index Scan') owner = bitmapOwner;
  // BitmapOr: its members are alternatives, not conditions every row meets (the heap scan's
  // Recheck Cond states the whole OR).
  for (const key of [...SCAN_CONDITIONS, ...JOIN_CONDITIONS]) {
    const condition = node[key];
    if (typeof condition === 'string') found(condition, owner);
  }
  for (const child of node.Plans ?? []) collectConditions(child, childBitmapOwner, found);
}

/** What each tenant relation's team column was found equal to, and the joins between them. */
class TeamFacts {
  private readonly parent = new Map<string, string>();
  private readonly anchors = new Set<string>();
  private readonly notes = new Map<string, Set<'initPlan' | 'any' | 'cast'>>();

  anchor(alias: string): void {
    this.anchors.add(this.find(alias));
  }

  join(a: string, b: string): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra === rb) return;
    this.parent.set(ra, rb);
    if (this.anchors.delete(ra)) this.anchors.add(rb);
  }

  note(alias: string, what: 'initPlan' | 'any' | 'cast'): void {
    this.notes.set(alias, (this.notes.get(alias) ?? new Set()).add(what));
  }

  anchored(alias: string): boolean {
    return this.anchors.has(this.find(alias));
  }

  reason(alias: string, column: string): string {
    const root = this.find(alias);
    const joined = [...this.parent.keys(), ...this.parent.values()].some((other) => other !== alias && this.find(other) === root);
    if (joined) return `joined on ${column} only to relations that have no ${column} = parameter or constant`;
    const notes = this.notes.get(alias) ?? new Set();
    if (notes.has('initPlan'))
      return `only row-level security's ${column} = (InitPlan …) (or another sub-select): no ${column} = parameter or constant`;
    if (notes.has('any')) return `${column} = ANY (…) matches several teams: no ${column} = parameter or constant`;
    if (notes.has('cast')) return `${column} is compared under a cast: no plain ${column} = parameter or constant`;
    return `no ${column} condition`;
  }

  private find(alias: string): string {
    let root = alias;
    for (let next = this.parent.get(root); next !== undefined; next = this.parent.get(root)) root = next;
    return root;
  }
}

type Operand =
  | { kind: 'team'; alias: string; cast: boolean }
  | { kind: 'value' } // a parameter or a constant
  | { kind: 'initPlan' } // an init plan's output: row-level security's rl_team(), or a sub-select
  | { kind: 'any' }
  | { kind: 'other' };

const EMPTY_ANY = /^\(?[A-Za-z_."]+ = ANY \('\{\}'::[a-z ]+\[\]\)\)?$/;
const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;
const COLUMN = new RegExp(`^(?:(${IDENT})\\.)?(${IDENT})$`);
const CAST_AT_END = /::(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_ .]*(?:\([0-9, ]*\))?)(?:\[\])*$/;

function classify(
  text: string,
  owner: string | undefined,
  teamColumnOf: (alias: string | undefined) => string | undefined,
  initPlanParams: ReadonlySet<string>,
): Operand {
  let s = text.trim();
  let cast = false;
  for (;;) {
    const unwrapped = stripParens(s);
    const castMatch = CAST_AT_END.exec(unwrapped);
    const next = castMatch ? unwrapped.slice(0, castMatch.index).trim() : unwrapped;
    if (castMatch) cast = true;
    if (next === s) break;
    s = next;
  }
  if (/^\$\d+$/.test(s)) return initPlanParams.has(s) ? { kind: 'initPlan' } : { kind: 'value' };
  if (/^'(?:[^']|'')*'$/.test(s) || /^-?\d+(?:\.\d+)?$/.test(s)) return { kind: 'value' };
  if (/^\((?:InitPlan|SubPlan) \d+\)\.col\d+$/.test(s) || /^(?:InitPlan|SubPlan) \d+$/.test(s)) return { kind: 'initPlan' };
  if (/^(?:ANY|ALL) \(/.test(s)) return { kind: 'any' };
  const column = COLUMN.exec(s);
  if (column) {
    const alias = column[1] === undefined ? owner : unquote(column[1]);
    const name = unquote(column[2]);
    if (alias !== undefined && teamColumnOf(alias) === name) return { kind: 'team', alias, cast };
  }
  return { kind: 'other' };
}

function unquote(identifier: string): string {
  return identifier.startsWith('"') ? identifier.slice(1, -1).replaceAll('""', '"') : identifier;
}

/** The top-level AND terms of a condition as EXPLAIN prints it. */
function conjuncts(condition: string): string[] {
  const inner = stripParens(condition.trim());
  const parts = splitTopLevel(inner, ' AND ');
  return parts.length > 1 ? parts.flatMap(conjuncts) : [inner];
}

/** `a = b` at the top level (not `<=`, `>=`, `<>`, nor inside parentheses or quotes). */
function splitEquality(term: string): [string, string] | undefined {
  const parts = splitTopLevel(stripParens(term), ' = ');
  return parts.length === 2 ? [parts[0], parts[1]] : undefined;
}

/** Splits on `separator` where it stands outside parentheses, brackets and quotes. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      i = closingQuote(text, i);
    } else if (c === '(' || c === '[') {
      depth++;
    } else if (c === ')' || c === ']') {
      depth--;
    } else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      start = i + separator.length;
      i = start - 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** The index of the quote that closes the one at `open` (a doubled quote is part of the text). */
function closingQuote(text: string, open: number): number {
  const quote = text[open];
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] !== quote) continue;
    if (text[i + 1] === quote) i++;
    else return i;
  }
  return text.length;
}

/** Removes parentheses that wrap the whole text: `((a = b))` → `a = b`. */
function stripParens(text: string): string {
  let s = text.trim();
  while (s.startsWith('(') && matchingParen(s, 0) === s.length - 1) s = s.slice(1, -1).trim();
  return s;
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') i = closingQuote(text, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}
