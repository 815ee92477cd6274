/** A quoted SQL literal, `''` inside it included. */
const LITERAL = /'(?:[^']|'')*'/g;

/**
 * A statement's text as a span records it: quoted literals blanked, so values written into the
 * text (the tenant settings' team and user ids) stay out of traces as bound parameters do.
 */
export function statementWithoutLiterals(sql: string): string {
  return sql.includes("'") ? sql.replace(LITERAL, "'?'") : sql;
}
