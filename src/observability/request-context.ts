import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

interface RequestScope {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** The id of the request being served, for logs and masked errors. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Takes a well-formed `x-request-id` from the caller or makes one, and echoes it back. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const header = req.headers['x-request-id'];
  const requestId = typeof header === 'string' && CLIENT_ID.test(header) ? header : randomUUID();
  res.setHeader('x-request-id', requestId);
  storage.run({ requestId }, next);
}
