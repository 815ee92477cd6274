import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { ErrorCode } from './common/errors/app-error';
import type { AppConfig } from './config/app-config';
import { houseErrorBody } from './http/edge-errors';

/** Where the console lives; the API it reads stays at /graphql with its own scopes. */
const ADMIN_CONSOLE_PATH = '/admin';

/**
 * The console's pages may run only the scripts and styles served beside them: no inline script,
 * no inline style element, no other origin, no framing, no plugins, no form posts.
 */
export const ADMIN_CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A year: the hashed file names change whenever their content does. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * Serves the admin console's static files (built by `npm run build` into `config.adminConsole.dir`)
 * at /admin: index.html revalidated on every load, hashed scripts and styles cached for a year,
 * every answer with the strict CSP. Not mounted when ADMIN_CONSOLE_ENABLED=false.
 */
export function serveAdminConsole(app: NestExpressApplication, config: AppConfig): void {
  if (!config.adminConsole.enabled) {
    app.use(ADMIN_CONSOLE_PATH, (_req: Request, res: Response) => {
      res
        .status(404)
        .json(
          houseErrorBody(
            ErrorCode.NOT_FOUND,
            'The admin console is disabled here (ADMIN_CONSOLE_ENABLED=false); the GraphQL API is at /graphql.',
          ),
        );
    });
    return;
  }
  const dir = config.adminConsole.dir;
  app.use(ADMIN_CONSOLE_PATH, consoleHeaders, notBuiltAnswer(dir));
  const assets = join(dir, 'assets');
  app.useStaticAssets(dir, {
    prefix: ADMIN_CONSOLE_PATH,
    index: 'index.html',
    redirect: true,
    setHeaders: (res: Response, path: string) => {
      res.setHeader('cache-control', path.startsWith(assets) ? HASHED_ASSET_CACHE : 'no-cache');
    },
  });
  // Anything else under /admin: a JSON 404 (the pages route with #fragments, so no deep link reaches here),
  // or a 405 for a method other than GET and HEAD (the static files fall through for those).
  app.use(ADMIN_CONSOLE_PATH, (req: Request, res: Response) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      res
        .status(405)
        .json(houseErrorBody(ErrorCode.METHOD_NOT_ALLOWED, `The admin console's files answer GET and HEAD, not ${req.method}.`));
      return;
    }
    res.status(404).json(houseErrorBody(ErrorCode.NOT_FOUND, `No console file at ${req.baseUrl}${req.path}.`));
  });
}

function consoleHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('content-security-policy', ADMIN_CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  next();
}

/** Before `npm run build` there is nothing to serve: say so in JSON rather than a bare 404 (without the folder: no file path in an answer). */
function notBuiltAnswer(dir: string) {
  let built = false;
  return (_req: Request, res: Response, next: NextFunction): void => {
    built ||= existsSync(join(dir, 'index.html'));
    if (built) return next();
    res
      .status(503)
      .json(
        houseErrorBody(
          ErrorCode.INTERNAL_SERVER_ERROR,
          'The admin console is not built: run `npm run build`, or point ADMIN_CONSOLE_DIR at a built console.',
        ),
      );
  };
}
