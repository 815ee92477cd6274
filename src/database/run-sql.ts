import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';

/**
 * Runs a statement with `?` placeholders on the EntityManager's connection, inside its
 * transaction when there is one, and returns the rows. Unlike `em.execute`, which first inlines
 * every value into the SQL text (escaping kilobytes of JSON in JavaScript on each write), the
 * values travel as bind parameters that PostgreSQL reads as they are. Arrays expand to `?, ?, …`
 * as with `em.execute`; errors keep the driver's SQLSTATE in `code`.
 */
export async function runSql<Rows = Record<string, unknown>[]>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<Rows> {
  const bound = expandArrays(sql, params);
  // Query logging (off in production) shows the statement as em.execute would, values inlined.
  const logger = em.config.getLogger();
  if (logger.isEnabled('query')) {
    logger.logQuery({ query: logger.isEnabled('query-params') ? em.getPlatform().formatQuery(sql, [...params]) : sql, level: 'info' });
  }
  const query = em.getKnex().raw(bound.sql, bound.params as Knex.RawBinding[]);
  const transaction = em.getTransactionContext<Knex.Transaction>();
  if (transaction) query.transacting(transaction);
  const result = (await query) as { rows: Rows };
  return result.rows;
}

/** Each array value's `?` becomes `?, ?, …` with one value each (for `in (?)` and `array[?]`). */
export function expandArrays(sql: string, params: readonly unknown[]): { sql: string; params: unknown[] } {
  if (!params.some(Array.isArray)) return { sql, params: [...params] };
  const flat: unknown[] = [];
  let index = 0;
  const expanded = sql.replace(/\\\?|\?/g, (mark) => {
    if (mark !== '?') return mark;
    const value = params[index++];
    if (!Array.isArray(value)) {
      flat.push(value);
      return '?';
    }
    flat.push(...value);
    return value.map(() => '?').join(', ');
  });
  return { sql: expanded, params: flat };
}
