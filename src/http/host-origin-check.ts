import type { NextFunction, Request, Response } from 'express';
import { ErrorCode } from '../common/errors/app-error';
import type { AppConfig } from '../config/app-config';
import { hostRefusal, originRefusal } from './allowed-origins';
import { edgeErrorBody } from './edge-errors';

/** The API routes a browser could be turned against; /metrics, health and the console's static files carry no tenant data. */
export const HOST_CHECKED_PATHS = ['/graphql', '/mcp', '/.well-known/oauth-protected-resource'];

/**
 * Refuses a request whose Host or Origin is not allowed with 403, before authentication and
 * before the body is read (the MCP transport specification: servers MUST validate Origin). The
 * answer speaks the route's protocol: JSON-RPC on /mcp, a GraphQL error elsewhere.
 */
export function hostOriginCheck(config: AppConfig) {
  const { allowedHosts, allowedOrigins } = config.http;
  return (req: Request, res: Response, next: NextFunction): void => {
    const refusal = hostRefusal(hostLines(req), allowedHosts) ?? originRefusal(req.headers.origin, allowedHosts, allowedOrigins);
    if (refusal === null) return next();
    // Mounted on its paths, so req.path is relative to the mount: the original URL names the route.
    const path = req.originalUrl.split('?')[0];
    res.status(403).json(edgeErrorBody(path, { status: 403, code: ErrorCode.FORBIDDEN, message: refusal }, undefined));
  };
}

/** Every Host header line of the request (Node keeps only the first in `req.headers`). */
function hostLines(req: Request): string[] {
  const lines: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === 'host') lines.push(req.rawHeaders[i + 1]);
  }
  return lines;
}
