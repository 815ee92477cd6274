import { type Attributes, type Span, SpanStatusCode, trace } from '@opentelemetry/api';

export { SPAN_ATTRIBUTES } from './span-attributes';

/**
 * OpenTelemetry traces, configured by the standard OTEL_* variables (docs/operations.md, Traces).
 * Off unless an exporter is named: OTEL_TRACES_EXPORTER (e.g. `otlp`, `console`), or an OTLP
 * endpoint (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true
 * or OTEL_TRACES_EXPORTER=none keeps it off. Off, the SDK is not loaded at all, and the calls
 * below reach the API's no-op tracer.
 *
 * Spans carry ids and counts only: never a payload, comment, query text, token or SQL parameter.
 */

export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.length > 0) return exporters.some((name) => name !== 'none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

let stopSdk: (() => Promise<void>) | undefined;

/**
 * Starts the SDK and its instrumentations when tracing is wanted; before the app's modules load,
 * so before the config is parsed: the SDK reads its own OTEL_* variables from the environment.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (stopSdk !== undefined || !tracingWanted(env)) return false;
  // Loaded only when on: the SDK and its instrumentations take ~0.5 s and ~35 MB to load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracingSdk } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  stopSdk = startTracingSdk(env);
  return true;
}

/** Whether the SDK runs (the edge then opens a span for each request). */
export function tracingStarted(): boolean {
  return stopSdk !== undefined;
}

/** Sends the spans still buffered and stops the SDK (at shutdown), waiting `timeoutMs` at most for an unreachable collector. */
export async function stopTracing(timeoutMs: number): Promise<void> {
  const stop = stopSdk;
  stopSdk = undefined;
  if (stop === undefined) return;
  const waited = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
  await Promise.race([stop().catch(() => undefined), waited]);
}

const tracer = trace.getTracer('recall-ledger');

/** Adds attributes to the span of the work being done; a function is called only when that work is traced. */
export function annotateSpan(attributes: Attributes | (() => Attributes)): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(typeof attributes === 'function' ? attributes() : attributes);
}

/**
 * Runs `work` in a span of its own, a child of the active one. A failure marks the span with its
 * error's kind only (`error.type`: a GraphQL code, an SQLSTATE, a class name): a message may quote
 * a statement's values.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setAttribute('error.type', errorType(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** An error's kind for a span: its GraphQL code, else its own code (an SQLSTATE), else its class. */
function errorType(error: unknown): string {
  const { extensions, code, name } = (error ?? {}) as { extensions?: { code?: unknown }; code?: unknown; name?: unknown };
  for (const kind of [extensions?.code, code, name]) if (typeof kind === 'string') return kind;
  return 'Error';
}

/** The trace and span ids of the active span, for a log line; none outside a traced request. */
export function traceFields(): { trace_id: string; span_id: string } | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  return context === undefined ? undefined : { trace_id: context.traceId, span_id: context.spanId };
}
