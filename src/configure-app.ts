import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ErrorCode } from './common/errors/app-error';
import type { AppConfig } from './config/app-config';
import { httpLoggingMiddleware } from './observability/http-logging.middleware';
import { NestPinoLogger } from './observability/logger';
import { requestIdMiddleware } from './observability/request-context';
import { tenantScopeMiddleware } from './database/tenant-scope';
import { serveAdminConsole } from './serve-admin-console';

/** HTTP set-up shared by the service and the e2e tests, so both run the same stack. */
export function configureApp(app: NestExpressApplication, config: AppConfig, logger: Logger): void {
  app.useLogger(new NestPinoLogger(logger));
  app.use(requestIdMiddleware);
  // Row-level security: the auth guard fills this request's tenant scope (R-TN-8).
  app.use(tenantScopeMiddleware);
  // Access logs are info lines; above info the middleware would only cost time per request.
  if (logger.isLevelEnabled('info')) app.use(httpLoggingMiddleware(logger));
  // Express' default of 100 kB would refuse legitimate tool outputs (R-TR-5).
  app.useBodyParser('json', { limit: config.http.bodyLimit });
  app.use(bodyTooLargeHandler(config.http.bodyLimit));
  app.disable('x-powered-by');
  // GraphQL answers POSTs: no client revalidates them, so hashing every body for an ETag is waste.
  app.set('etag', false);
  serveAdminConsole(app, config);
}

/** A request over the body limit gets a GraphQL-shaped error with its code, not an HTML page. */
function bodyTooLargeHandler(limit: string) {
  return (err: { type?: string } | undefined, _req: Request, res: Response, next: NextFunction): void => {
    if (err?.type !== 'entity.too.large') return next(err);
    res.status(413).json({
      errors: [
        { message: `The request body is over the ${limit} limit (HTTP_BODY_LIMIT).`, extensions: { code: ErrorCode.PAYLOAD_TOO_LARGE } },
      ],
    });
  };
}
