import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';
import { UUID_PATTERN } from '../common/uuid-pattern';

/**
 * Whose rows the statements of the current work may see (R-TN-8). Its row-level security
 * policies key on the transaction-local settings `app.team_id` and `app.user_id`, which `runSql`
 * sets from here; work with no scope sees no tenant row at all.
 */
export interface TenantScope {
  readonly teamId: string;
  /** Unset: every user of the team (a team admin's maintenance, the retention sweep). */
  readonly userId?: string;
}

interface ScopeHolder {
  scope?: TenantScope;
}

const storage = new AsyncLocalStorage<ScopeHolder>();

/** Every request gets an empty holder; the auth guard fills it once the token is verified. */
export function tenantScopeMiddleware(_req: Request, _res: Response, next: NextFunction): void {
  storage.run({}, next);
}

/** The scope of the request (or of `withTenantScope`) being served, if any. */
export function currentTenantScope(): TenantScope | undefined {
  return storage.getStore()?.scope;
}

/** Sets the request's scope (the auth guard, from the verified token's team and user). */
export function enterTenantScope(scope: TenantScope): void {
  const holder = storage.getStore();
  if (!holder) throw new Error('enterTenantScope outside a request: wrap the work in withTenantScope');
  holder.scope = checkedScope(scope);
}

/** Runs `work` under another scope: a team admin's work on every user of the team, one team's sweep. */
export function withTenantScope<T>(scope: TenantScope, work: () => Promise<T>): Promise<T> {
  return storage.run({ scope: checkedScope(scope) }, work);
}

function checkedScope(scope: TenantScope): TenantScope {
  // The ids are written into the statement that sets them (run-sql's scopeStatement): only UUIDs pass.
  if (!UUID_PATTERN.test(scope.teamId) || (scope.userId !== undefined && !UUID_PATTERN.test(scope.userId))) {
    throw new Error('a tenant scope names a team and a user by UUID');
  }
  return scope;
}
