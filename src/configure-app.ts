import type { NestApplicationOptions } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'pino';
import type { AppConfig } from './config/app-config';
import { answerUnansweredRequests, edgeErrorHandler, HttpEdge, methodGate } from './http/edge-answer';
import { HOST_CHECKED_PATHS, hostOriginCheck } from './http/host-origin-check';
import { jsonBodyParser } from './http/json-body';
import { httpLoggingMiddleware } from './observability/http-logging.middleware';
import { httpTracingMiddleware } from './observability/http-tracing.middleware';
import { NestPinoLogger } from './observability/logger';
import { metricsAccess } from './http/metrics-access';
import { requestIdMiddleware } from './observability/request-context';
import { tracingStarted } from './observability/tracing';
import { tenantScopeMiddleware } from './database/tenant-scope';
import { serveAdminConsole } from './serve-admin-console';
import { type AuthenticatedRequest, authenticateBeforeBody, jsonBodyMayBeRead, TeamAdmission, TokenVerifier } from './tenancy';

/**
 * How the service's Nest application is created (by `npm start`, the tests and the bench): Nest's
 * own body parsers are off, because they would read every request's body before its token is
 * checked; configureApp mounts the one parser the API needs, after authentication.
 */
export const APP_OPTIONS: NestApplicationOptions = { bufferLogs: true, bodyParser: false };

/** Where API calls come in: the only paths whose bodies are read. */
const API_PATHS = ['/graphql', '/mcp'];

/** HTTP set-up shared by the service and the e2e tests, so both run the same stack. */
export function configureApp(app: NestExpressApplication, config: AppConfig, logger: Logger): void {
  app.useLogger(new NestPinoLogger(logger));
  // First: the request's server span, and the sampler's decision for everything under it (R-OP-8).
  if (tracingStarted()) app.use(httpTracingMiddleware);
  app.use(requestIdMiddleware);
  // Row-level security: the auth guard fills this request's tenant scope (R-TN-8).
  app.use(tenantScopeMiddleware);
  // Access logs are info lines; above info the middleware would only cost time per request.
  if (logger.isLevelEnabled('info')) app.use(httpLoggingMiddleware(logger));
  // DNS rebinding and cross-site pages: refused before authentication and before the body is read.
  app.use(HOST_CHECKED_PATHS, hostOriginCheck(config));
  // Before the method gate: without the token, /metrics tells nothing, not even which methods it answers.
  app.use('/metrics', metricsAccess(config.metrics.token));
  // JSON at every edge (R-OP-4): a 405 before the body is read; Apollo answers any method at /graphql, so it is named.
  const edge = new HttpEdge(config.http.bodyLimit, logger);
  app.use(methodGate(app, edge, { '/graphql': ['GET', 'POST'] }));
  // Unauthenticated work is bounded before any (R-TN-10): the token is verified and the team admitted
  // (a fair turn, R-TN-11) before a body is read, and only then is it parsed. Express' default of
  // 100 kB would refuse legitimate tool outputs (R-TR-5).
  app.use(API_PATHS, authenticateBeforeBody({ verifier: app.get(TokenVerifier), admission: app.get(TeamAdmission), config }));
  // Short bodies by body-parser's JSON.parse, after a nesting check; longer ones read whole and
  // parsed in slices when their structure would hold the event loop (http/json-body.ts).
  app.use(jsonBodyParser(config.http.bodyLimit, (req) => jsonBodyMayBeRead(req as AuthenticatedRequest)));
  // A body that is not JSON, or over the limit: a 400/413 in the route's protocol, not an HTML page.
  app.use(edgeErrorHandler(edge));
  app.disable('x-powered-by');
  // X-Forwarded-Proto (the metadata's scheme) and X-Forwarded-For (req.ip, which nothing logs) count
  // only from these proxies; from anyone else a client could claim https. The Host header is read
  // as sent either way (X-Forwarded-Host is not used: public-url.ts).
  app.set('trust proxy', config.http.trustedProxies.length > 0 ? [...config.http.trustedProxies] : false);
  // GraphQL answers POSTs: no client revalidates them, so hashing every body for an ETag is waste.
  app.set('etag', false);
  serveAdminConsole(app, config);
  // Whatever nothing answered (Nest's 404 and error layers end there too): JSON, not Express' HTML page.
  answerUnansweredRequests(app, edge);
}
