import type { EntityManager } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import type { Client as PgConnection } from 'pg';
import { STORED_JSON_TYPES } from '../common/json/stored-json';
import { currentRequestBudget } from '../observability/request-context';
import {
  databaseTimeLeft,
  discardIfUnanswered,
  type PoolTimeouts,
  RequestDatabaseTimeError,
  statementReadTimeout,
} from './connection-deadlines';
import { currentTenantScope, type TenantScope } from './tenant-scope';

export interface RunSqlOptions {
  /**
   * The statement calls a database function that sets the tenant settings itself from its
   * arguments (`record_tool_results`, `actor_spaces`, …): it needs no transaction of its own.
   */
  readonly setsOwnScope?: boolean;
  /**
   * The statement touches no tenant table (`retention_leases`): it runs as it is, with no tenant
   * settings and no transaction of its own, whatever scope the caller is in.
   */
  readonly noTenantRows?: boolean;
  /**
   * The statement is canceled (SQLSTATE 57014) after this many milliseconds: it runs alone in a
   * transaction of its own whose `begin` carries the timeout, in one round trip. Not for a statement
   * inside a caller's transaction (whose later statements would keep the timeout): that throws.
   */
  readonly timeoutMs?: number;
  /** The statement's json and jsonb columns come back as their text (StoredJson), not parsed. */
  readonly storedJson?: boolean;
}

/**
 * Runs a statement with `?` placeholders on the EntityManager's connection, inside its
 * transaction when there is one, and returns the rows. Unlike `em.execute`, which first inlines
 * every value into the SQL text (escaping kilobytes of JSON in JavaScript on each write), the
 * values travel as bind parameters that PostgreSQL reads as they are. Arrays expand to `?, ?, …`
 * as with `em.execute`; errors keep the driver's SQLSTATE in `code`.
 *
 * Under a tenant scope (R-TN-8) the statement sees only the scope's rows: inside a transaction
 * the settings are made once, at its first statement; a lone statement runs in a transaction
 * of its own, opened together with the settings in one round trip.
 */
export async function runSql<Rows = Record<string, unknown>[]>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  options: RunSqlOptions = {},
): Promise<Rows> {
  const bound = expandArrays(sql, params);
  // Query logging (off in production) shows the statement as em.execute would, values inlined.
  const logger = em.config.getLogger();
  if (logger.isEnabled('query')) {
    logger.logQuery({ query: logger.isEnabled('query-params') ? em.getPlatform().formatQuery(sql, [...params]) : sql, level: 'info' });
  }
  // The pool's connection itself (the transaction's, inside one): knex's query runner would add its
  // own bookkeeping to every statement, and this one only needs pg's.
  const transaction = em.getTransactionContext<Knex.Transaction>();
  const client = (transaction ?? em.getKnex()).client as PoolClient;
  const scope = options.setsOwnScope || options.noTenantRows ? undefined : currentTenantScope();
  const timeout = options.timeoutMs === undefined ? undefined : timeoutStatement(options.timeoutMs);
  if (transaction && timeout) throw new Error('runSql: timeoutMs is for a lone statement, not one inside a transaction');
  const connection = await client.acquireConnection();
  // Each round trip's read timeout, taken when it is sent: cut to what is left of the request's
  // database time (counted since the acquire above); undefined, the pool's own (DB_QUERY_TIMEOUT_MS).
  const time = currentRequestBudget()?.databaseTime;
  const statementTimeoutMs = options.timeoutMs ?? (transaction && transactionTimeouts.get(transaction));
  const readTimeout = (): number | undefined => {
    if (time === undefined && statementTimeoutMs === undefined) return undefined;
    const ms = statementReadTimeout(client.connectionSettings, statementTimeoutMs, time && databaseTimeLeft(time, Date.now()));
    if (ms !== undefined && ms <= 0) throw new RequestDatabaseTimeError();
    return ms;
  };
  const types = options.storedJson ? STORED_JSON_TYPES : undefined;
  const statement = (text: string, values?: unknown[]) => ({ text, values, query_timeout: readTimeout(), types });
  try {
    if (!timeout && (!scope || transaction)) {
      if (scope && transaction && !scopedTransactions.has(transaction)) {
        await connection.query(statement(scopeStatement(scope)));
        scopedTransactions.add(transaction);
      }
      return (await connection.query(statement(positional(bound.sql), bound.params))).rows as Rows;
    }
    // A lone statement in a transaction of its own, opened with its settings in one round trip.
    await connection.query(statement(['begin', timeout, scope && scopeStatement(scope)].filter(Boolean).join('; ')));
    try {
      const result = await connection.query(statement(positional(bound.sql), bound.params));
      await connection.query(statement('commit'));
      return result.rows as Rows;
    } catch (error) {
      // Unanswered, the connection is closed first: the server rolls back on its own, and the rollback fails at once instead of queueing behind.
      discardIfUnanswered(connection);
      await connection.query('rollback').catch(() => undefined);
      throw error;
    }
  } catch (error) {
    // In a caller's transaction: closed before its rollback, which would otherwise wait behind the lost statement.
    discardIfUnanswered(connection);
    throw error;
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * The settings as one statement without parameters, so it can share a simple-protocol round trip
 * with `begin` (the scope's ids are UUIDs, checked when it was entered). Transaction-local
 * (`true`): behind PgBouncer's transaction pooling the next transaction may run on another server
 * connection, and must not inherit them.
 */
function scopeStatement(scope: TenantScope): string {
  return `select set_config('app.team_id', '${scope.teamId}', true), set_config('app.user_id', '${scope.userId ?? ''}', true)`;
}

/** A statement timeout for the transaction only, written into the statement as `scopeStatement`'s settings are. */
function timeoutStatement(timeoutMs: number): string {
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) throw new Error(`runSql: timeoutMs must be a positive integer, not ${timeoutMs}`);
  return `select set_config('statement_timeout', '${timeoutMs}', true)`;
}

/** The transactions whose tenant settings are made (they last until the transaction ends). */
const scopedTransactions = new WeakSet<object>();

/** What runSql uses of a knex client: its pool of pg connections (a transaction's hands out its own), and their timeouts. */
interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  readonly connectionSettings: PoolTimeouts;
}

/** The statement timeout a transaction set for its statements (inTransactionWithTimeout): their read timeout follows it. */
const transactionTimeouts = new WeakMap<object, number>();

/** `?` becomes `$1`, `$2`, … (an escaped `\?` stays a literal `?`), as knex numbers them. */
export function positional(sql: string): string {
  const known = positionalTexts.get(sql);
  if (known !== undefined) return known;
  let index = 0;
  const numbered = sql.replace(/\\\?|\?/g, (mark) => (mark === '?' ? `$${++index}` : '?'));
  // The repositories' statements are constants: a few hundred texts. Long array expansions vary, and pass.
  if (sql.length > POSITIONAL_TEXT_MAX_CHARS) return numbered;
  if (positionalTexts.size >= POSITIONAL_TEXTS_KEPT) positionalTexts.clear();
  positionalTexts.set(sql, numbered);
  return numbered;
}

const POSITIONAL_TEXTS_KEPT = 1_000;
const POSITIONAL_TEXT_MAX_CHARS = 8_192;
const positionalTexts = new Map<string, string>();

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
    flat.push(...(value as unknown[]));
    return value.map(() => '?').join(', ');
  });
  return { sql: expanded, params: flat };
}

/**
 * Runs `work` in a transaction of its own whose statements may each run `timeoutMs` at most
 * (`set_config(…, true)`: for this transaction only, so it is PgBouncer-safe). Repositories
 * called inside use the transaction through their usual (context-aware) EntityManager: MikroORM's
 * transaction context follows the async call; `work` also gets the transaction's own, for a
 * caller whose EntityManager is a fork.
 */
export function inTransactionWithTimeout<T>(em: EntityManager, timeoutMs: number, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    const transaction = tx.getTransactionContext<Knex.Transaction>();
    if (transaction) transactionTimeouts.set(transaction, timeoutMs);
    // Touches no tenant row: the transaction's first tenant statement makes the scope's settings.
    await runSql(tx, `select set_config('statement_timeout', ?, true)`, [String(timeoutMs)], { noTenantRows: true });
    return work(tx);
  });
}

/** Runs a data-modifying statement (without its own `returning`) and returns how many rows it changed. */
export async function countChanged(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<number> {
  const rows = await runSql<{ n: number }[]>(em, `with done as (${sql} returning 1) select count(*)::int as n from done`, params);
  return rows[0].n;
}

/**
 * Values as one PostgreSQL array literal, bound to a `uuid[]` or `text[]` parameter: one
 * parameter however many values (an empty list is a valid empty array). Each is quoted.
 */
export function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}
