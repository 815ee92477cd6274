import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** What one HTTP request has used of its budgets so far (R-TN-10); mutated in place by whoever spends. */
export interface RequestBudget {
  /** Payload characters reserved for the response. */
  payloadChars: number;
  /** JSONPath library evaluations started. */
  libraryEvaluations: number;
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

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The budget of the request being served; undefined outside a request (no budget applies). */
export function currentRequestBudget(): RequestBudget | undefined {
  return storage.getStore()?.budget;
}

/** Takes a well-formed `x-request-id` from the caller or makes one, and echoes it back. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['x-request-id'];
  const requestId = typeof header === 'string' && CLIENT_ID.test(header) ? header : randomUUID();
  res.setHeader('x-request-id', requestId);
  storage.run({ requestId, budget: { payloadChars: 0, libraryEvaluations: 0 } }, next);
}
