// @ts-check
/**
 * house/no-sql-outside-repositories — SQL text belongs in `*.repository.ts`, `src/database/run-sql.ts`
 * and `migrations/`; the lint config applies this rule to the rest of `src/` (tests excepted).
 *
 * It reports a string literal, a template literal, or a `+` chain of them whose text reads as SQL.
 * Ordinary English ("Select a space from the list.", "Join the team on Monday", "where to write the
 * file") must not trip it, so one keyword is never enough: each pattern needs two SQL keywords in SQL
 * order with an SQL-shaped operand between them (an identifier that is not an English determiner,
 * a comparison, a placeholder, a parenthesis), or two distinct SQL clauses in one text.
 * Interpolations (`${…}`) count as an identifier-like operand.
 */

/** Words that follow "from" / "join" / "delete from" in English but never name a table. */
const DETERMINERS = new Set(
  (
    'a an the this that these those my your our their its his her each every any all some no one it them us you me ' +
    'which what where there here now then other another both either neither such'
  ).split(' '),
);

const PLACEHOLDER = 'expr__';
/** A table or column name: plain, schema-qualified, quoted, or an interpolation. */
const IDENT = String.raw`(?:"[^"]+"|[a-z_][\w$]*)(?:\.(?:"[^"]+"|[a-z_][\w$]*|\*))*`;
/** A comparison after a column: an operator, [not] in / like / between, is [not] null. */
const COMPARISON = String.raw`(?:=|<>|!=|<=|>=|<|>|@@|\?\||\?&|\s+(?:not\s+)?(?:in|like|ilike|between|similar\s+to)\b|\s+is\s+(?:not\s+)?(?:null|true|false|distinct)\b)`;

/** @param {string} keyword */
const tableAfter = (keyword) => new RegExp(String.raw`\b${keyword}\s+(?:only\s+)?(?:lateral\s+)?(${IDENT})`, 'g');

/**
 * True when `word` (as matched by IDENT) could name a table, i.e. it is not an English determiner.
 * @param {string} word
 */
const isTableName = (word) => word.startsWith('"') || word.includes('.') || word.includes('_') || !DETERMINERS.has(word);

/**
 * `from <table>` where the table is not an English determiner.
 * @param {string} text
 */
function hasFromTable(text) {
  for (const match of text.matchAll(tableAfter('from'))) if (isTableName(match[1])) return true;
  return false;
}

/**
 * `insert into <table> … values|select …` or `insert into <table> (…`, the table not an English determiner.
 * @param {string} text
 */
function hasInsert(text) {
  for (const match of text.matchAll(tableAfter(String.raw`insert\s+into`))) {
    if (!isTableName(match[1])) continue;
    const rest = text.slice(match.index + match[0].length);
    if (/^\s*\(/.test(rest) || /^[^;]{0,300}?\b(?:values\s*\(|select\b|default\s+values\b)/.test(rest)) return true;
  }
  return false;
}

const OBJECT_KINDS = 'table|index|view|function|procedure|trigger|sequence|schema|extension|type|database|policy|statistics|role|rule';

/** Statement shapes that are SQL on their own. */
const STATEMENTS = [
  // update t [alias] set col = …
  new RegExp(String.raw`\bupdate\s+(?:only\s+)?${IDENT}(?:\s+(?:as\s+)?[a-z_]\w*)?\s+set\s+(?:${IDENT}|\()\s*=`),
  // create [or replace] [unique|temp|…] <kind> [if not exists] name, where the name is SQL-shaped
  // (quoted, qualified, snake_case, interpolated) or followed by what SQL puts there
  new RegExp(
    String.raw`\bcreate\s+(?:or\s+replace\s+)?(?:unique\s+|temp\s+|temporary\s+|unlogged\s+|materialized\s+)*(?:${OBJECT_KINDS})\s+` +
      String.raw`(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?` +
      String.raw`(?:(?:"[^"]+"|[a-z_]\w*[._]\S*|expr__)|${IDENT}\s*(?:\(|\b(?:on|as|returns|before|after|instead|template|encoding|owner|with|from)\b|;|$)|\(|on\b)`,
  ),
  // alter|drop <kind> [if exists] name | alter system set
  new RegExp(
    String.raw`\b(?:alter|drop)\s+(?:${OBJECT_KINDS}|constraint|column)\s+(?:if\s+(?:not\s+)?exists\s+)?(?:"[^"]+"|[a-z_]\w*[._]\S*|expr__|${IDENT}\s*(?:\bon\b|\bcascade\b|;|$|\badd\b|\balter\b|\bset\b|\brename\b|\bwith\b))`,
  ),
  /\balter\s+system\s+(?:set|reset)\s+[a-z_]/,
  // select fn(…) … | select 1 … | select … as "alias" — a select that needs no from (server functions, constants)
  /^select\s+(?:distinct\s+)?(?:[a-z_][\w.]*\(|\d+\s*(?:,|as\b|$)|[^\n]*\bas\s+"[^"]+")/,
  // [left] join t [alias] on a.col = … — a join condition on qualified columns
  new RegExp(String.raw`\bjoin\s+(?:lateral\s+)?${IDENT}(?:\s+(?:as\s+)?[a-z_]\w*)?\s+on\s+(?:"[^"]+"|[a-z_]\w*)\.\S+\s*=`),
  // with name as (select … — a common table expression
  new RegExp(
    String.raw`\bwith\s+(?:recursive\s+)?${IDENT}\s+as\s+(?:not\s+)?(?:materialized\s+)?\(\s*(?:select|insert|update|delete|values)\b`,
  ),
];

/**
 * Clauses: two distinct ones in one text make it SQL.
 * @type {Record<string, (text: string) => boolean>}
 */
const CLAUSES = {
  select: (text) => /\bselect\s+(?:distinct\s+)?\S/.test(text) && hasFromTable(text),
  where: (text) => new RegExp(String.raw`\bwhere\s+(?:not\s+)?\(?${IDENT}\s*${COMPARISON}`).test(text),
  join: (text) => {
    for (const match of text.matchAll(tableAfter('join'))) {
      if (!isTableName(match[1])) continue;
      const rest = text.slice(match.index + match[0].length);
      if (/^\s+(?:(?:as\s+)?[a-z_]\w*\s+)?(?:on|using)\b/.test(rest) || /^\s+(?:as\s+)?[a-z_]\w*\s*\(/.test(rest)) return true;
    }
    return false;
  },
  groupBy: (text) => new RegExp(String.raw`\bgroup\s+by\s+(?:${IDENT}|\d)`).test(text) && /[._(,"]|\bexpr__/.test(text),
  orderBy: (text) => new RegExp(String.raw`\border\s+by\s+${IDENT}(?:\s+(?:asc|desc)\b|\s*,|\s+nulls\s+(?:first|last)\b)`).test(text),
  limit: (text) => /\blimit\s+(?:\?|\$\d+|\d+|expr__)/.test(text) && /\b(?:select|from|returning)\b/.test(text),
  returning: (text) => new RegExp(String.raw`\breturning\s+(?:\*|${IDENT}\s*(?:,|$))`).test(text),
  onConflict: (text) => /\bon\s+conflict\b/.test(text),
  deleteFrom: (text) => {
    for (const match of text.matchAll(tableAfter('delete\\s+from'))) if (isTableName(match[1])) return true;
    return false;
  },
};

/** A `select <columns> from <table>` whose column list is plainly SQL (`*`, `count(*)`, `a.b`, `a, b`, `1`). */
const SELECT_WITH_SQL_COLUMNS = new RegExp(
  String.raw`\bselect\s+(?:distinct\s+)?(?:\*|\d+\b|[^\n]*?[(.,*"][^\n]*?|${IDENT})\s+from\s+(${IDENT})`,
);

/** A `where` comparison against a bind parameter, a qualified column or a quoted name: SQL even alone. */
const WHERE_WITH_PARAMETER = new RegExp(
  String.raw`\bwhere\s+(?:not\s+)?\(?(?:${IDENT})\s*(?:=|<>|!=|<=|>=|<|>|\s+(?:not\s+)?in)\s*\(?\s*(?:\?|\$\d+|:\w+|expr__|${IDENT}\.)`,
);

/**
 * Whether `raw` reads as SQL. Exported for the rule's unit test.
 * @param {string} raw
 * @returns {boolean}
 */
export function looksLikeSql(raw) {
  const text = raw.toLowerCase().replace(/\s+/g, ' ').trim();
  if (text.length < 10) return false;
  if (STATEMENTS.some((pattern) => pattern.test(text)) || hasInsert(text)) return true;
  const select = SELECT_WITH_SQL_COLUMNS.exec(text);
  if (select && isTableName(select[1])) return true;
  if (WHERE_WITH_PARAMETER.test(text)) return true;
  let clauses = 0;
  for (const test of Object.values(CLAUSES)) if (test(text) && ++clauses >= 2) return true;
  return false;
}

/**
 * The text of a string literal, a template (interpolations as a placeholder) or a `+` chain with at
 * least one of them (other operands as a placeholder); null for anything else.
 * @param {import('estree').Node | import('estree').PrivateIdentifier} node
 * @returns {string | null}
 */
function textOf(node) {
  switch (node.type) {
    case 'Literal':
      return typeof node.value === 'string' ? node.value : null;
    case 'TemplateLiteral':
      return node.quasis
        .map((quasi, i) => (quasi.value.cooked ?? quasi.value.raw) + (i < node.expressions.length ? ` ${PLACEHOLDER} ` : ''))
        .join('');
    case 'BinaryExpression': {
      if (node.operator !== '+') return null;
      const left = textOf(node.left);
      const right = textOf(node.right);
      return left === null && right === null ? null : (left ?? ` ${PLACEHOLDER} `) + (right ?? ` ${PLACEHOLDER} `);
    }
    default:
      return null;
  }
}

/** @param {import('eslint').Rule.Node | null} node */
const isConcatenation = (node) => node?.type === 'BinaryExpression' && node.operator === '+';

/** Parents whose string is a module name, never a statement. */
const MODULE_SOURCE_PARENTS = new Set([
  'ImportDeclaration',
  'ExportNamedDeclaration',
  'ExportAllDeclaration',
  'ImportExpression',
  'TSExternalModuleReference',
  'TSImportType',
]);

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'suggestion',
    docs: { description: 'SQL text only in repositories (*.repository.ts), src/database/run-sql.ts and migrations/' },
    schema: [],
    messages: {
      sql: 'This text reads as SQL: SQL belongs in a *.repository.ts (or src/database/run-sql.ts, migrations/). Move the statement there and call it.',
    },
  },
  create(context) {
    /**
     * Checks a literal, template or `+` chain once: parts of a chain are checked as the whole chain.
     * @param {import('eslint').Rule.Node} node
     */
    const check = (node) => {
      if (isConcatenation(node.parent) || MODULE_SOURCE_PARENTS.has(node.parent?.type ?? '')) return;
      const text = textOf(node);
      if (text !== null && looksLikeSql(text)) context.report({ node, messageId: 'sql' });
    };
    return { Literal: check, TemplateLiteral: check, BinaryExpression: check };
  },
};

export default rule;
