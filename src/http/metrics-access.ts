import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { ErrorCode } from '../common/errors/app-error';
import { houseErrorBody } from './edge-errors';

/** The bearer token an Authorization header carries (RFC 6750: the scheme is case-insensitive), or null. */
export function bearerTokenOf(authorization: string | undefined): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
  return match ? match[1] : null;
}

/**
 * Whether `presented` is `expected`, in time that does not depend on where they differ: both are
 * hashed first, so neither the contents nor the length of the secret leak through the timing.
 */
export function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * `/metrics` behind `METRICS_TOKEN`: it names every tenant's tool names and the process' state,
 * so when a token is set only `Authorization: Bearer <token>` reads it; otherwise 401 in the house
 * error shape with `WWW-Authenticate`. Unset: open, as a scraper on a private network expects.
 */
export function metricsAccess(token: string | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (token === undefined) return next();
    const presented = bearerTokenOf(req.headers.authorization);
    if (presented !== null && sameSecret(presented, token)) return next();
    res.setHeader('WWW-Authenticate', presented === null ? 'Bearer' : 'Bearer error="invalid_token"');
    res.status(401).json(houseErrorBody(ErrorCode.UNAUTHENTICATED, '/metrics needs Authorization: Bearer <METRICS_TOKEN>.'));
  };
}
