import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/**
 * What one HTTP request has used so far of the limits that hold per request (not per call):
 * GraphQL aliases and MCP batches share these counters. Mutable on purpose: checks and adds
 * happen synchronously, so concurrent resolvers of one request cannot overshoot.
 */
export interface RequestBudget {
  /** Payload bytes (tool input/output, as JSON on the wire; a whole payload a recall loaded) reserved so far. */
  payloadBytes: number;
  /** JSONPath evaluations by the library started so far. */
  libraryEvaluations: number;
  /** Settles when the request's previous whole-payload read has been counted (see `inTurn`). */
  payloadReadTurn?: Promise<void>;
  /** The database time the request has used, from its first wait for a connection on (connection-deadlines.ts). */
  databaseTime?: DatabaseTime;
  /** Gives the request's admission turn back before its response closes (see `stepAsideFromAdmission`). */
  admissionTurn?: () => void;
}

/**
 * The request being served leaves admission's count (R-TN-11): called when it starts to wait in a
 * worker pool's or a database turn's fair queue, which bound its wait and its team's share
 * themselves. Parked there, it would otherwise hold one of MAX_IN_FLIGHT while using nothing, and
 * a team's flood of slow lookups would keep other teams' requests from starting. It goes on
 * without a turn once served (its work there is off the event loop; what follows is a window).
 */
export function stepAsideFromAdmission(): void {
  const budget = currentRequestBudget();
  const turn = budget?.admissionTurn;
  if (budget === undefined || turn === undefined) return;
  budget.admissionTurn = undefined;
  turn();
}

/**
 * A request's time on the database (R-OP-6): while it waits for or holds pool connections, counted
 * once where they overlap. Mutable on purpose, as the budget is.
 */
export interface DatabaseTime {
  /** What it may use (DB_TIME_PER_REQUEST_MS). */
  readonly limitMs: number;
  /** Used in the intervals already over. */
  usedMs: number;
  /** Connections the request is waiting for or holding now. */
  open: number;
  /** When the current interval began (epoch ms), while `open` is above 0. */
  since: number;
}

/**
 * Runs the request's reads of whole payloads one at a time, each after the previous one was
 * counted in `payloadBytes`: a read's size is known only once it is loaded, and aliases or a batch
 * running side by side would otherwise all pass the check before any was counted.
 */
export async function inPayloadReadTurn<T>(budget: RequestBudget | undefined, read: () => Promise<T>): Promise<T> {
  if (budget === undefined) return read();
  const previous = budget.payloadReadTurn ?? Promise.resolve();
  let done = (): void => undefined;
  budget.payloadReadTurn = new Promise<void>((resolve) => (done = resolve));
  await previous;
  try {
    return await read();
  } finally {
    done();
  }
}

interface RequestScope {
  requestId: string;
  budget: RequestBudget;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The id of the request being served, for logs and masked errors. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The budget of the request being served; undefined outside a request (no limit applies). */
export function currentRequestBudget(): RequestBudget | undefined {
  return storage.getStore()?.budget;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Takes a well-formed `x-request-id` from the caller or makes one, and echoes it back. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['x-request-id'];
  const requestId = typeof header === 'string' && CLIENT_ID.test(header) ? header : randomUUID();
  res.setHeader('x-request-id', requestId);
  storage.run({ requestId, budget: { payloadBytes: 0, libraryEvaluations: 0 } }, next);
}
