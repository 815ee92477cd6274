import { useInMemoryTracing } from '../../../test/support/in-memory-tracing';
import { annotateSpan, inSpan, SPAN_ATTRIBUTES, traceFields, tracingWanted } from '../tracing';

describe('tracingWanted (R-OP-8: the standard OTEL_* variables)', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp, console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_SERVICE_NAME: 'recall-ledger' }, false],
  ])('R-OP-8 %j traces: %s', (env, wanted) => {
    expect(tracingWanted(env as NodeJS.ProcessEnv)).toBe(wanted);
  });
});

describe('spans of our own (R-OP-8)', () => {
  const exporter = useInMemoryTracing();

  it('R-OP-8 inSpan runs its work in a child of the active span, which annotateSpan and the log fields then see', async () => {
    const fields = await inSpan('outer', { [SPAN_ATTRIBUTES.teamId]: 't-1' }, () =>
      inSpan('inner', {}, async (inner) => {
        await new Promise((resolve) => setImmediate(resolve));
        annotateSpan({ [SPAN_ATTRIBUTES.snapshots]: 3 });
        annotateSpan(() => ({ [SPAN_ATTRIBUTES.refs]: 2 }));
        return { logged: traceFields(), inner: inner.spanContext() };
      }),
    );
    const [inner, outer] = exporter.getFinishedSpans();
    expect([inner.name, outer.name]).toEqual(['inner', 'outer']);
    expect(inner.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(inner.attributes).toEqual({ [SPAN_ATTRIBUTES.snapshots]: 3, [SPAN_ATTRIBUTES.refs]: 2 });
    expect(outer.attributes).toEqual({ [SPAN_ATTRIBUTES.teamId]: 't-1' });
    expect(fields.logged).toEqual({ trace_id: fields.inner.traceId, span_id: fields.inner.spanId });
  });

  it('R-OP-8 a failure marks the span with its kind, never its message, and is thrown on', async () => {
    const failure = Object.assign(new Error('duplicate key value (secret-value-42)'), { code: '23505' });
    await expect(
      inSpan('failing', {}, () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(inSpan('plain', {}, () => Promise.reject(new RangeError('secret-value-43')))).rejects.toThrow(RangeError);
    const [coded, plain] = exporter.getFinishedSpans();
    expect(coded.attributes).toEqual({ 'error.type': '23505' });
    expect(plain.attributes).toEqual({ 'error.type': 'RangeError' });
    expect(coded.status.code).toBe(2);
    const recorded = JSON.stringify(exporter.getFinishedSpans().map((span) => [span.attributes, span.status, span.events]));
    expect(recorded).not.toMatch(/secret-value/);
  });

  it('R-OP-8 outside a span there is nothing to annotate (attributes are not even computed) and no trace id to log', () => {
    expect(() => annotateSpan({ [SPAN_ATTRIBUTES.items]: 1 })).not.toThrow();
    const computed = jest.fn(() => ({ [SPAN_ATTRIBUTES.items]: 1 }));
    annotateSpan(computed);
    expect(computed).not.toHaveBeenCalled();
    expect(traceFields()).toBeUndefined();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
