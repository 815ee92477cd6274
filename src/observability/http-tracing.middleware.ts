import type { IncomingMessage } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { NextFunction, Request, Response } from 'express';
import { SPAN_ATTRIBUTES } from './span-attributes';

/** Probes and scrapes: as in the access log, no span. */
const UNTRACED_PATHS = new Set(['/health', '/health/ready', '/metrics']);

const tracer = trace.getTracer('recall-ledger');

/**
 * Names the traced request's server span after what it asked, once that is known: the GraphQL
 * operation (`POST /graphql query Block`), the MCP methods and tool. `label` is not called for a
 * request that is not traced.
 */
export function labelRequestSpan(request: IncomingMessage, label: () => string | undefined): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  const text = label();
  if (text !== undefined) span.updateName(`${request.method} ${pathOf(request)} ${text}`);
}

/** The path asked for: Express rewrites `url` inside a mounted router (Apollo's), not `originalUrl`. */
function pathOf(request: IncomingMessage & { originalUrl?: string }): string {
  const url = request.originalUrl ?? request.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The context of a request that is not traced: no span, and no span may start under it. */
const UNTRACED = suppressTracing(ROOT_CONTEXT);

/**
 * The request's server span, first in the chain (registered only while tracing is on). The
 * sampler decides here, once: a caller's `traceparent` is followed as OTEL_TRACES_SAMPLER says,
 * and a request that is not sampled runs with tracing suppressed, so nothing under it — the `pg`
 * instrumentation, our own spans — does any tracing work. That is what keeps the cost of traces
 * at a low sampling ratio near the cost of the sampled requests alone (bench/README.md, Traces).
 */
export function httpTracingMiddleware(req: Request, res: Response, next: NextFunction): void {
  const path = pathOf(req);
  if (UNTRACED_PATHS.has(path)) return context.with(UNTRACED, next);
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = tracer.startSpan(`${req.method} ${path}`, { kind: SpanKind.SERVER }, parent);
  if (!span.isRecording()) return context.with(UNTRACED, next);
  span.setAttributes({
    [ATTR_HTTP_REQUEST_METHOD]: req.method,
    [ATTR_URL_PATH]: path,
    [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
  });
  res.once('close', () => {
    const status = res.statusCode;
    span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
    const requestId = res.getHeader('x-request-id');
    if (typeof requestId === 'string') span.setAttribute(SPAN_ATTRIBUTES.requestId, requestId);
    if (status >= 500 || !res.writableFinished) {
      span.setAttribute(ATTR_ERROR_TYPE, res.writableFinished ? String(status) : 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  });
  // What runs after `next` carries the context on (as the request id's does: request-context.ts).
  context.with(trace.setSpan(parent, span), next);
}
