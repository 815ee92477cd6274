import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { ATTR_DB_QUERY_TEXT } from '@opentelemetry/semantic-conventions';
import { statementWithoutLiterals } from './statement-text';

/**
 * The SDK (loaded by tracing.ts only when tracing is on). The exporter, its endpoint and protocol,
 * the sampler, the propagators and the resource come from the OTEL_* variables, as the SDK reads
 * them; the service name defaults to recall-ledger.
 *
 * Of the instrumentations, only `pg`'s is loaded: it records a statement only under a span, and a
 * request that is not sampled carries none. The server span and the GraphQL root fields' spans are
 * our own (http-tracing.middleware.ts, graphql-root-spans.ts): the HTTP, Express and GraphQL
 * instrumentations work on every request, sampled or not, and at a sampling ratio of 0.1 raised
 * the floor's Node CPU a request by 35 %, against 8 % for ours (bench/README.md, Traces).
 */
export function startTracingSdk(env: NodeJS.ProcessEnv): () => Promise<void> {
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'recall-ledger',
    // Traces only: metrics are Prometheus's (/metrics) and logs are the JSON lines on stdout. Left
    // to the SDK's defaults, it would also export both over OTLP and time every request for a meter.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      // Statement text with its $n placeholders, never the values bound to them (nor those written
      // into the text); only under a span.
      new PgInstrumentation({
        enhancedDatabaseReporting: false,
        requireParentSpan: true,
        requestHook: (span, { query }) => span.setAttribute(ATTR_DB_QUERY_TEXT, statementWithoutLiterals(query.text)),
      }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}
