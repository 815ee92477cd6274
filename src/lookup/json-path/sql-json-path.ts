import { jsonpath, type JSONPathQuery } from 'json-p3';

type Segment = JSONPathQuery['segments'][number];
type Selector = Segment['selectors'][number];
type Expression = InstanceType<typeof jsonpath.expressions.LogicalExpression>['expression'];

const { selectors, expressions } = jsonpath;

/** PostgreSQL's array subscripts are 32-bit; larger indexes go to the library. */
const MAX_SQL_INDEX = 2 ** 31 - 1;
/** Each descendant segment walks the whole document from every node it reaches: one is linear, two are not. */
const MAX_SQL_DESCENTS = 1;
const ORDER_OPERATORS = new Set(['<', '<=', '>', '>=']);
const FLIPPED: Readonly<Record<string, string>> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==' };

/**
 * The PostgreSQL SQL/JSON path (strict mode) that selects exactly the RFC 9535 nodes of `query`,
 * or null when the query uses what has no exact translation: slices, unions, functions, `!`,
 * `!=`, comparisons of two queries or with a non-literal, order comparisons of non-numbers, more
 * than one descendant segment, a descendant inside a filter.
 *
 * Strict mode, because lax mode unwraps arrays (`$.a` on `[{"a":1}]` gives 1; RFC 9535 gives
 * nothing). Strict mode raises an error instead of skipping a missing key or index, and an error
 * ends the whole evaluation, so each step is guarded by a filter that keeps only the nodes it
 * applies to: an error inside a filter is "unknown", which the filter drops. For the same reason
 * an unknown comparison (a missing key, a number against a string) counts as false, as RFC 9535
 * has it, as long as nothing negates it: hence no `!` and no `!=`.
 */
export function toSqlJsonPath(query: JSONPathQuery): string | null {
  const steps = pathSteps(query, MAX_SQL_DESCENTS);
  return steps === null ? null : `strict $${steps}`;
}

/** The steps after `$` or `@`, or null. */
function pathSteps(query: JSONPathQuery, maxDescents: number): string | null {
  let descents = 0;
  let steps = '';
  for (const segment of query.segments) {
    const descendant = isDescendant(segment);
    if (descendant && ++descents > maxDescents) return null;
    if (segment.selectors.length !== 1) return null;
    const child = childStep(segment.selectors[0]);
    if (child === null) return null;
    // `.**` is the node itself and all its descendants, parents before children, arrays in order.
    steps += descendant ? `.**${child}` : child;
  }
  return steps;
}

/** json-p3 writes a descendant segment back as `..[…]`; it exports no class to test against. */
function isDescendant(segment: Segment): boolean {
  return segment.toString().startsWith('..');
}

/** The members of an object and the elements of an array alike (a scalar has none). */
const ALL_CHILDREN = '.**{1}';

function childStep(selector: Selector): string | null {
  if (selector instanceof selectors.NameSelector) return `? (exists(@.${quoted(selector.name)})).${quoted(selector.name)}`;
  if (selector instanceof selectors.IndexSelector) return indexStep(selector.index);
  if (selector instanceof selectors.WildcardSelector) return ALL_CHILDREN;
  if (selector instanceof selectors.FilterSelector) {
    const condition = logical(selector.expression.expression);
    return condition === null ? null : `${ALL_CHILDREN} ? (${condition})`;
  }
  return null;
}

function indexStep(index: number): string | null {
  if (Math.abs(index) > MAX_SQL_INDEX) return null;
  if (index >= 0) return `? (@.type() == "array" && @.size() > ${index})[${index}]`;
  return `? (@.type() == "array" && @.size() >= ${-index})[last - ${-index - 1}]`;
}

function logical(expression: Expression): string | null {
  if (expression instanceof expressions.LogicalExpression) return logical(expression.expression);
  if (expression instanceof expressions.InfixExpression) {
    if (expression.operator === '&&' || expression.operator === '||') {
      const left = logical(expression.left);
      const right = logical(expression.right);
      return left === null || right === null ? null : `(${left} ${expression.operator} ${right})`;
    }
    return comparison(expression.left, expression.operator, expression.right);
  }
  if (expression instanceof expressions.RelativeQuery || expression instanceof expressions.RootQuery) {
    // A descent inside a filter would walk the document once per node the filter sees.
    const steps = pathSteps(expression.path, 0);
    return steps === null ? null : `exists(${queryRoot(expression)}${steps})`;
  }
  return null;
}

/** A singular query against a literal: `==` with any literal, order comparisons with a number. */
function comparison(left: Expression, operator: string, right: Expression): string | null {
  const flip = isLiteral(left);
  const [queried, literal] = flip ? [right, left] : [left, right];
  const op = flip ? FLIPPED[operator] : operator;
  if (op === undefined || op === '!=' || !isLiteral(literal)) return null;
  if (!(queried instanceof expressions.RelativeQuery || queried instanceof expressions.RootQuery) || !queried.path.singularQuery())
    return null;
  const value = literal instanceof expressions.NullLiteral ? null : literal.value;
  if (ORDER_OPERATORS.has(op) && typeof value !== 'number') return null;
  const accessors = singularAccessors(queried.path);
  return accessors === null ? null : `${queryRoot(queried)}${accessors} ${op} ${JSON.stringify(value)}`;
}

type Literal = InstanceType<
  typeof expressions.NullLiteral | typeof expressions.BooleanLiteral | typeof expressions.StringLiteral | typeof expressions.NumberLiteral
>;

function isLiteral(expression: Expression): expression is Literal {
  return (
    expression instanceof expressions.NullLiteral ||
    expression instanceof expressions.BooleanLiteral ||
    expression instanceof expressions.StringLiteral ||
    expression instanceof expressions.NumberLiteral
  );
}

function queryRoot(query: Expression): '@' | '$' {
  return query instanceof expressions.RootQuery ? '$' : '@';
}

/** Plain accessors: inside a comparison, a missing key or index is an error, which makes it unknown (false). */
function singularAccessors(query: JSONPathQuery): string | null {
  let accessors = '';
  for (const {
    selectors: [selector],
  } of query.segments) {
    if (selector instanceof selectors.NameSelector) accessors += `.${quoted(selector.name)}`;
    else if (selector instanceof selectors.IndexSelector && Math.abs(selector.index) <= MAX_SQL_INDEX) {
      accessors += selector.index >= 0 ? `[${selector.index}]` : `[last - ${-selector.index - 1}]`;
    } else return null;
  }
  return accessors;
}

/** A member name or string as a SQL/JSON path string: JSON's escapes are a subset of its own. */
function quoted(name: string): string {
  return JSON.stringify(name);
}
