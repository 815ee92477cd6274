import type { IncomingMessage, ServerResponse } from 'node:http';
import { NotFoundException } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ErrorCode } from '../common/errors/app-error';
import { currentRequestId } from '../observability/request-context';
import { type EdgeError, edgeErrorBody, edgeErrorOf, methodNotAllowed, shortened } from './edge-errors';
import { type RouteMethods, routeKey, routeMethods } from './route-methods';

/**
 * Answers, in JSON, every request the service's routes did not answer themselves: a body that
 * cannot be read, a path or method nothing serves, an error nothing caught. JSON-RPC on /mcp, the
 * house shape (R-OP-4) elsewhere; never a stack or file path, whatever NODE_ENV says. A
 * server error is logged with its kind and the request id, never its message (body-parser's
 * carries the body, a driver's the row).
 */
export class HttpEdge {
  constructor(
    private readonly bodyLimit: string,
    private readonly logger: Logger,
  ) {}

  /** Answers `thrown` (anything, or nothing: no route) as an EdgeError. */
  fail(req: Request, res: Response, thrown: unknown): void {
    if (res.headersSent) {
      // Too late for an answer: end the connection so the client sees a failure, as Express would.
      req.socket.destroy();
      return;
    }
    const error = isNoRoute(req, thrown) ? noRoute(req) : edgeErrorOf(thrown, this.bodyLimit);
    if (error.status >= 500) this.log(req, res, thrown);
    this.answer(req, res, error);
  }

  answer(req: Request, res: Response, error: EdgeError): void {
    const requestId = requestIdOf(res);
    // Whatever a failed route set (a content type, an encoding) is not this answer's.
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    if (requestId) res.setHeader('x-request-id', requestId);
    res.setHeader('x-content-type-options', 'nosniff');
    if (error.allow) res.setHeader('allow', error.allow.join(', '));
    res.status(error.status).json(edgeErrorBody(req.path, error, requestId));
  }

  private log(req: Request, res: Response, thrown: unknown): void {
    const { name, code, type, stack } = (thrown ?? {}) as { name?: unknown; code?: unknown; type?: unknown; stack?: unknown };
    this.logger.error(
      {
        // The frames say where; the stack's other lines are the message (which may span lines), not logged.
        error: { name, code, type, frames: typeof stack === 'string' ? framesOf(stack) : undefined },
        requestId: requestIdOf(res) ?? null,
        method: req.method,
        path: req.path,
      },
      'unhandled error at the HTTP edge',
    );
  }
}

function framesOf(stack: string): string {
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 10)
    .join('\n');
}

function requestIdOf(res: Response): string | undefined {
  const header = res.getHeader('x-request-id');
  return currentRequestId() ?? (typeof header === 'string' ? header : undefined);
}

/** Nothing answered: the stack ran out, or Nest's catch-all not-found layer threw (its message names the request, query included). */
function isNoRoute(req: Request, thrown: unknown): boolean {
  return thrown === undefined || (thrown instanceof NotFoundException && thrown.message === `Cannot ${req.method} ${req.originalUrl}`);
}

function noRoute(req: Request): EdgeError {
  if (!isPercentEncoded(req.path)) {
    return {
      status: 400,
      code: ErrorCode.BAD_REQUEST,
      message: `The path ${shortened(req.path)} is not valid percent-encoding: write each reserved or non-ASCII byte as %XX (UTF-8).`,
    };
  }
  return {
    status: 404,
    code: ErrorCode.NOT_FOUND,
    message: `Nothing answers ${req.method} ${shortened(req.path)}: the GraphQL API is POST /graphql, the MCP endpoint POST /mcp.`,
  };
}

function isPercentEncoded(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Body-parser's errors (and any other before the routes) as JSON; mounted right after the parsers. */
export function edgeErrorHandler(edge: HttpEdge) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(error);
    edge.fail(req, res, error);
  };
}

/**
 * A 405 with `Allow` for a fixed path asked with a method it does not answer, before the body is
 * read. `mounts` name the methods of paths mounted with `app.use`, which the router cannot tell.
 * The routes exist once `app.init()` has run, after this is mounted: the map is read at the first request.
 */
export function methodGate(app: NestExpressApplication, edge: HttpEdge, mounts: Record<string, readonly string[]>) {
  let routes: RouteMethods | undefined;
  return (req: Request, res: Response, next: NextFunction): void => {
    routes ??= routeMethods(app.getHttpAdapter().getInstance().router.stack, mounts);
    const allow = routes.get(routeKey(req.path));
    if (!allow || allow.includes(req.method)) return next();
    edge.answer(req, res, methodNotAllowed(req.method, req.path, allow));
  };
}

/**
 * Express answers what its stack leaves unanswered with `finalhandler`: an HTML page, and the
 * whole error on stderr (a JSON parse error carries the request body). Nest's not-found and
 * exception layers end there as well, because the global GraphqlErrorFilter rethrows outside
 * GraphQL. So the HTTP server calls Express with the edge as its final callback — the one place
 * every unanswered request reaches.
 */
export function answerUnansweredRequests(app: NestExpressApplication, edge: HttpEdge): void {
  const server = app.getHttpServer();
  const express = app.getHttpAdapter().getInstance();
  if (!server.listeners('request').includes(express)) {
    throw new Error('answerUnansweredRequests: the HTTP server does not call the Express app directly; the edge cannot take its place.');
  }
  // An Express app is a middleware too: its third argument is what runs when its stack is done.
  const handle: (req: IncomingMessage, res: ServerResponse, done: (error?: unknown) => void) => void = express;
  server.removeListener('request', express);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, (error) => {
      try {
        edge.fail(req as Request, res as Response, error);
      } catch {
        res.destroy();
      }
    });
  });
}
