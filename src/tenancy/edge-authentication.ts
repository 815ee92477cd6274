import type { NextFunction, Request, Response } from 'express';
import { AppError, ErrorCode, RateLimitedError } from '../common/errors/app-error';
import type { AppConfig } from '../config/app-config';
import { houseErrorBody, isMcpPath, JSONRPC_RATE_LIMITED, JSONRPC_UNAUTHENTICATED, jsonRpcError } from '../http/edge-errors';
import { publicBaseUrl, varyByPublicBaseUrl } from '../http/public-url';
import { bearerChallenge, protectedResourceMetadataUrl } from './protected-resource';
import type { TeamAdmission } from './team-admission';
import type { VerifiedClaims } from './token-verifier';

/** A request the edge authenticated and admitted: its verified claims, read by the GraphQL guard and the MCP controller. */
export type AuthenticatedRequest = Request & { claims?: VerifiedClaims };

interface EdgeAuthenticationParts {
  verifier: { verify(token: string): Promise<VerifiedClaims> };
  admission: TeamAdmission;
  config: AppConfig;
}

/** The API path a request came in on; inside `app.use(paths, …)` Express strips it from `req.path`. */
function apiPath(req: Request): string {
  return req.baseUrl + req.path;
}

/** The methods whose requests carry an API call: GraphQL's POST and GET, MCP's POST. Others are answered by the routes, bodiless. */
function carriesCall(req: Request): boolean {
  return req.method === 'POST' || (req.method === 'GET' && !isMcpPath(apiPath(req)));
}

/**
 * Authenticates and admits each API call on /graphql and /mcp before its body is read (R-TN-10,
 * R-TN-11). Invariant: no byte of a body is parsed for a request without a valid token, and a
 * valid one is parsed only once its team's turn has come; the large body limit (HTTP_BODY_LIMIT)
 * applies to authenticated requests only. A refusal is answered in the edge's protocol — GraphQL's
 * shape, or JSON-RPC with the OAuth challenge on /mcp — and the connection closed after it, the
 * body unread. Verifying a token costs no SQL; what the token leads to (the user, a
 * deletion's tombstone, the spaces) is read later, per request, as before.
 */
export function authenticateBeforeBody({ verifier, admission, config }: EdgeAuthenticationParts) {
  return async (req: AuthenticatedRequest, res: Response, next: NextFunction): Promise<void> => {
    if (!carriesCall(req)) return next();
    const edge = isMcpPath(apiPath(req)) ? 'mcp' : 'graphql';
    try {
      const claims = await verifier.verify(bearerToken(req.headers.authorization));
      await admission.admit(req, res, claims.teamId, edge);
      req.claims = claims;
    } catch (error) {
      if (res.closed) return;
      closeUnreadBody(req);
      if (error instanceof RateLimitedError) return rateLimited(req, res, error);
      if (error instanceof AppError && error.code === ErrorCode.UNAUTHENTICATED) return unauthenticated(req, res, error, config);
      return next(error);
    }
    next();
  };
}

/** The claims the edge verified for this request; throws (masked as an internal error) if it never ran. */
export function edgeClaims(req: AuthenticatedRequest): VerifiedClaims {
  if (req.claims === undefined) throw new Error('authenticateBeforeBody did not run for this request: mount it before the API routes');
  return req.claims;
}

/** Whether the JSON body parser may read this request's body: a JSON body of an authenticated, admitted call only. */
export function jsonBodyMayBeRead(req: AuthenticatedRequest): boolean {
  return req.claims !== undefined && Boolean(req.is('application/json'));
}

/** What a refused request may still send after its answer, read and dropped, before its connection is closed. */
const LINGER_BYTES = 256 * 1024;

/**
 * A refused request's body is not parsed, and at most LINGER_BYTES of it are read (and dropped)
 * before its connection closes. Node would otherwise read the whole upload to discard it, on the
 * event loop every team shares; closing at once, before the client has read the answer, resets
 * the connection under a client still sending far more often (a short lingering close, as RFC 9112
 * §9.6 advises). A client that sends megabytes without a token may still see a reset.
 */
function closeUnreadBody(req: Request): void {
  if (req.complete) return;
  // Reading it ourselves (before the answer) keeps Node from draining the rest after it.
  let dropped = 0;
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) req.socket.destroy();
  });
}

function bearerToken(header: string | undefined): string {
  const match = header?.match(/^Bearer\s+(\S+)$/i);
  if (!match) throw new AppError(ErrorCode.UNAUTHENTICATED, 'Send Authorization: Bearer <token>.');
  return match[1];
}

function unauthenticated(req: Request, res: Response, error: AppError, config: AppConfig): void {
  if (!isMcpPath(apiPath(req))) {
    // GraphQL answers its errors with HTTP 200, as a guard's refusal always was (docs/api.md).
    res.status(200).json(houseErrorBody(ErrorCode.UNAUTHENTICATED, error.message));
    return;
  }
  // The challenge points MCP clients at the protected-resource metadata (RFC 9728) of the address they reached.
  varyByPublicBaseUrl(config, res);
  const resourceMetadataUrl = protectedResourceMetadataUrl(publicBaseUrl(config, req), '/mcp');
  const tokenSent = req.headers.authorization !== undefined && /^Bearer\s+\S+$/i.test(req.headers.authorization);
  res.setHeader(
    'www-authenticate',
    bearerChallenge(tokenSent ? { resourceMetadataUrl, error: 'invalid_token', description: error.message } : { resourceMetadataUrl }),
  );
  res.status(401).json(jsonRpcError(JSONRPC_UNAUTHENTICATED, error.message, { code: ErrorCode.UNAUTHENTICATED }));
}

function rateLimited(req: Request, res: Response, error: RateLimitedError): void {
  res.setHeader('retry-after', String(error.retryAfterSeconds));
  const body = isMcpPath(apiPath(req))
    ? jsonRpcError(JSONRPC_RATE_LIMITED, error.message, { code: ErrorCode.RATE_LIMITED, retryAfterSeconds: error.retryAfterSeconds })
    : { errors: [{ message: error.message, extensions: { code: ErrorCode.RATE_LIMITED, ...error.details } }] };
  res.status(429).json(body);
}
